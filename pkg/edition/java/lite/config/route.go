package config

import (
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
)

// Route is one entry of `config.lite.routes`.
type Route struct {
	// Host patterns (`host`: a string or a list); `*` and `?` wildcards.
	// Required, none empty.
	Host []string
	// Backend addresses (`backend`: a string or a list) as host[:port]
	// (port 25565 when omitted, see BackendAddr), IPv6 in brackets; `$n`
	// is filled from the n-th wildcard of the matched host. Required.
	Backend []string
	// Strategy orders the backends. Default Sequential.
	Strategy Strategy
	// CachePingTTL is how long a backend's status response is reused.
	// Default 10s (also when configured 0); -1 when configured negative,
	// which disables the cache.
	CachePingTTL time.Duration
	// Fallback answers pings when every backend is down; nil: not configured.
	Fallback *Fallback
	// ProxyProtocol sends a PROXY protocol v2 header to the backend. Default false.
	ProxyProtocol bool
	// TCPShieldRealIP forwards the client IP in TCPShield's RealIP format
	// (`tcpShieldRealIP`, or the deprecated `realIP`). Default false.
	TCPShieldRealIP bool
	// ModifyVirtualHost rewrites the handshake host to the backend's host.
	// Default false.
	ModifyVirtualHost bool
	// Disconnect holds the route's `disconnect.unavailable`, else the global
	// `config.lite.disconnect.unavailable`; UnknownHost is always nil.
	Disconnect Messages
	// HealthCheck is resolved: the route's `healthCheck` keys over the global
	// `config.lite.healthCheck`.
	HealthCheck HealthCheck
	// Line is where the route's entry starts in the file, for logs.
	Line int
}

// defaultCachePingTTL is Gate's default status cache lifetime.
const defaultCachePingTTL = 10 * time.Second

// routeMeta remembers where each host and backend was written, so that
// findings about them point at the right line.
type routeMeta struct {
	line     int
	path     string
	hosts    []listItem
	backends []listItem
}

func (d *decoder) decodeRoutes(e entry, l *Lite) {
	items, ok := d.sequence(e)
	if !ok {
		return
	}
	if len(items) == 0 {
		d.invalid(e, "no routes configured: want at least one")
		return
	}
	metas := make([]routeMeta, 0, len(items))
	for _, it := range items {
		r, meta := d.decodeRoute(it, l)
		l.Routes = append(l.Routes, r)
		metas = append(metas, meta)
	}
	if len(d.errs) == 0 {
		d.lintRoutes(l, metas)
	}
}

func (d *decoder) decodeRoute(e entry, l *Lite) (Route, routeMeta) {
	r := Route{
		Strategy:     Sequential,
		CachePingTTL: defaultCachePingTTL,
		Disconnect:   Messages{Unavailable: l.Disconnect.Unavailable},
		HealthCheck:  l.HealthCheck,
		Line:         resolve(e.val).Line,
	}
	meta := routeMeta{line: r.Line, path: e.path}
	var tcpShield, realIP bool
	ok := d.mapping(e, map[string]handler{
		"host":              func(f entry) { r.Host, meta.hosts = d.hosts(f) },
		"backend":           func(f entry) { r.Backend, meta.backends = d.backends(f) },
		"strategy":          func(f entry) { d.strategy(f, &r.Strategy) },
		"cachePingTTL":      func(f entry) { d.cachePingTTL(f, &r.CachePingTTL) },
		"fallback":          func(f entry) { r.Fallback = d.decodeFallback(f) },
		"proxyProtocol":     func(f entry) { d.boolean(f, &r.ProxyProtocol) },
		"tcpShieldRealIP":   func(f entry) { d.boolean(f, &tcpShield) },
		"modifyVirtualHost": func(f entry) { d.boolean(f, &r.ModifyVirtualHost) },
		"disconnect":        func(f entry) { d.decodeMessages(f, &r.Disconnect, true) },
		"healthCheck":       func(f entry) { r.HealthCheck = d.decodeHealthCheck(f, l.HealthCheck) },
		"realIP": func(f entry) {
			if d.boolean(f, &realIP) {
				d.warnf(f.key.Line, f.path, "deprecated: use tcpShieldRealIP")
			}
		},
	}, nil)
	r.TCPShieldRealIP = tcpShield || realIP
	if ok && r.Host == nil {
		d.errorf(r.Line, child(e.path, "host"), ErrMissing, "missing (want a host pattern or a list of them)")
	}
	if ok && r.Backend == nil {
		d.errorf(r.Line, child(e.path, "backend"), ErrMissing, "missing (want host[:port] or a list of them)")
	}
	return r, meta
}

// hosts decodes `host`.
func (d *decoder) hosts(e entry) ([]string, []listItem) {
	return d.addresses(e, "host pattern", func(s string) error {
		if s == "" {
			return route.ErrEmptyPattern
		}
		return nil
	})
}

// backends decodes `backend`.
func (d *decoder) backends(e entry) ([]string, []listItem) {
	return d.addresses(e, "backend", validBackend)
}

// addresses decodes a non-empty string-or-list, checking every item.
func (d *decoder) addresses(e entry, what string, check func(string) error) ([]string, []listItem) {
	// Failures return an empty, non-nil slice: the problem is reported, and
	// the route must not also be reported as missing the key.
	items, ok := d.stringList(e)
	if !ok {
		return []string{}, nil
	}
	if len(items) == 0 {
		d.invalid(e, "empty list: want at least one %s", what)
		return []string{}, nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if err := check(it.s); err != nil {
			d.errorf(it.line, it.path, ErrInvalid, "invalid %s %q: %v", what, truncate(it.s), err)
			continue
		}
		out = append(out, it.s)
	}
	if len(out) != len(items) {
		return []string{}, nil // reported; not nil so "missing" is not reported too
	}
	return out, items
}

// cachePingTTL applies Gate's rule: 0 is the default, negative disables.
func (d *decoder) cachePingTTL(e entry, dst *time.Duration) {
	var v time.Duration
	if !d.duration(e, &v) {
		return
	}
	switch {
	case v == 0:
		*dst = defaultCachePingTTL
	case v < 0:
		*dst = -1
	default:
		*dst = v
	}
}

// lintRoutes compiles the table and turns route.Lint findings into warnings
// at the line of the host or backend concerned.
func (d *decoder) lintRoutes(l *Lite, metas []routeMeta) {
	specs := l.Specs()
	if _, err := route.Compile(specs); err != nil {
		d.errorf(0, "config.lite.routes", ErrInvalid, "%v", err)
		return
	}
	for _, f := range route.Lint(specs) {
		m := metas[f.Route]
		line, path := m.line, m.path
		switch {
		case f.Backend >= 0 && f.Backend < len(m.backends):
			line, path = m.backends[f.Backend].line, m.backends[f.Backend].path
		case f.Host >= 0 && f.Host < len(m.hosts):
			line, path = m.hosts[f.Host].line, m.hosts[f.Host].path
		}
		d.warnf(line, path, "%s", f.Msg)
	}
}
