package config

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
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
}

func defaultAPI() API { return API{Bind: "localhost:8080"} }

func (d *decoder) decodeAPI(e entry, a *API) {
	var tokenFile, token *entry
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
	}, nil)
	if !ok {
		return
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
