package config

import (
	"net"
	"strconv"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// lintRealIP warns about a backend that one route reaches with tcpShieldRealIP and
// another without it. Such a backend trusts the RealIP block in the handshake host
// (the proxy writes it on the first route), but on the second route the host is the
// player's own, so a player can forge any address the backend will believe. The
// warning is at the backend's line on the route without tcpShieldRealIP, once per
// backend and route. Templated backends are skipped: what they expand to is not known
// here.
func (d *decoder) lintRealIP(l *Lite, metas []routeMeta) {
	type use struct{ route, line int }
	shielded := make(map[string]use)
	for i, r := range l.Routes {
		if !r.TCPShieldRealIP {
			continue
		}
		for _, b := range r.Backend {
			if k, ok := backendKey(b); ok {
				if _, seen := shielded[k]; !seen {
					shielded[k] = use{i, metas[i].line}
				}
			}
		}
	}
	if len(shielded) == 0 {
		return
	}
	for i, r := range l.Routes {
		if r.TCPShieldRealIP {
			continue
		}
		warned := make(map[string]bool)
		for j, b := range r.Backend {
			k, ok := backendKey(b)
			u, both := shielded[k]
			if !ok || !both || warned[k] || j >= len(metas[i].backends) {
				continue
			}
			warned[k] = true
			it := metas[i].backends[j]
			d.warnf(it.line, it.path, "backend %q is also reached by route %d (line %d) with tcpShieldRealIP, and this route has none: a player connecting here can forge the RealIP block that backend trusts (give both routes tcpShieldRealIP, or use separate backends)",
				b, u.route, u.line)
		}
	}
}

// backendKey is addr as host:port with the default port filled in and the host in
// lower case, so two spellings of one backend compare equal; false for a template.
func backendKey(addr string) (string, bool) {
	if route.MaxParam(addr) > 0 {
		return "", false
	}
	host, port, err := splitOptionalPort(addr)
	if err != nil {
		return "", false
	}
	if port == "" {
		port = strconv.Itoa(int(wire.DefaultPort))
	}
	return net.JoinHostPort(strings.ToLower(strings.TrimSuffix(host, ".")), port), true
}
