package config

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// API configures the admin HTTP API (top-level `api:` as in Gate).
type API struct {
	// Enabled starts the API. Default false.
	Enabled bool
	// Bind is the API's listen address. Default "localhost:8080" like Gate;
	// Gate's nested form `api.config.bind` is accepted too.
	Bind string
	// Token, when set, is the bearer token every request must carry.
	// Default "" (no token). Mutually exclusive with TokenFile.
	Token string
	// TokenFile is a file holding the token, resolved against the config
	// file's directory at load and required to exist when the API is enabled.
	// Default "" (none).
	TokenFile string
	// PublicMetrics serves /metrics without the token (for scrapers that carry
	// none, such as Kubernetes annotation-based discovery); the JSON API still
	// needs it. /healthz and /readyz never need a token. Default false.
	PublicMetrics bool
	// ProbeBind, when set, is a listener of its own that serves /healthz and /readyz
	// and nothing else, without a token on any address (they reveal nothing), so that
	// a firewall or NetworkPolicy can keep Bind for the API's clients while kubelets
	// and load balancers probe this one. Default "" (the probes are answered on Bind).
	ProbeBind string
}

func defaultAPI() API { return API{Bind: "localhost:8080"} }

func (d *decoder) decodeAPI(e entry, a *API) {
	var tokenFile, token, probe *entry
	ok := d.mapping(e, map[string]handler{
		"enabled": func(f entry) { d.boolean(f, &a.Enabled) },
		"bind":    func(f entry) { d.bind(f, &a.Bind) },
		"config": func(f entry) {
			d.mapping(f, map[string]handler{"bind": func(g entry) { d.bind(g, &a.Bind) }}, nil)
		},
		"token": func(f entry) {
			d.str(f, &a.Token)
			token = &f
		},
		"tokenFile": func(f entry) {
			d.str(f, &a.TokenFile)
			tokenFile = &f
		},
		"publicMetrics": func(f entry) { d.boolean(f, &a.PublicMetrics) },
		"probeBind": func(f entry) {
			if n := resolve(f.val); n == nil || n.Kind != yaml.ScalarNode || n.Value != "" {
				d.bind(f, &a.ProbeBind) // "" is the default, which bind refuses
				probe = &f
			}
		},
	}, nil)
	if !ok {
		return
	}
	if probe != nil {
		d.checkProbeBind(*probe, a)
	}
	if token != nil && tokenFile != nil && a.Token != "" && a.TokenFile != "" {
		d.invalid(*tokenFile, "set either token or tokenFile, not both")
	}
	if a.TokenFile != "" && !filepath.IsAbs(a.TokenFile) {
		a.TokenFile = filepath.Join(d.dir, a.TokenFile)
	}
	if !a.Enabled {
		return
	}
	if a.TokenFile != "" {
		if _, err := os.Stat(a.TokenFile); err != nil {
			d.invalid(*tokenFile, "token file: %v", err)
		}
	}
	if a.Token == "" && a.TokenFile == "" && !LoopbackBind(a.Bind) {
		// An error, not a warning: the proxy refuses to start such a listener, so
		// `gate validate` must not call the file fine.
		d.errorf(resolve(e.val).Line, child(e.path, "bind"), ErrInvalid,
			"the API would listen on %s without a token: set api.token or api.tokenFile, or bind to loopback", a.Bind)
	}
}

// checkProbeBind holds api.probeBind to what can listen next to api.bind.
func (d *decoder) checkProbeBind(f entry, a *API) {
	_, port, _ := net.SplitHostPort(a.ProbeBind)
	switch {
	case a.ProbeBind == "":
	case !a.Enabled:
		d.warnf(f.val.Line, f.path, "no probe listener while api.enabled is false")
	case a.ProbeBind == a.Bind && port != "0":
		d.invalid(f, "the same address as api.bind; leave it empty to answer the probes there")
	}
}

// LoopbackBind reports whether a listen address only accepts local peers. The admin
// listener applies the same rule at start, so `gate validate` and the proxy agree.
func LoopbackBind(bind string) bool {
	host, _, err := net.SplitHostPort(bind)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}
