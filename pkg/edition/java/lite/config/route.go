package config

import (
	"errors"
	"maps"
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/strategy"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Route is one entry of `config.lite.routes`.
type Route struct {
	// Host patterns (`host`: a string or a list); `*` and `?` wildcards.
	// Required; an empty pattern matches only an empty host, as in Gate.
	Host []string
	// Backend addresses (`backend`: a string or a list) as host[:port]
	// (wire.DefaultPort, 25565, when omitted), IPv6 in brackets; `$n`
	// is filled from the n-th wildcard of the matched host. Required.
	Backend []string
	// Strategy orders the backends. Default strategy.Default.
	Strategy strategy.Name
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
	// Capacity overrides the player capacity some backends report, keyed by
	// address (`backend` items written as {address, capacity}). Read by
	// strategy p2c and status: aggregate. Nil when no item sets one.
	Capacity map[string]int
	// P2C tunes strategy p2c (`latencyWeight`, `staleAfter`, `saturation`,
	// `peers`, `drainMotd`); defaults applied.
	P2C P2CConfig
	// Status is how the route answers server-list pings (`status`).
	// Default StatusBackend.
	Status StatusMode
	// Line is where the route's entry starts in the file, for logs.
	Line int
	// Key is the route's identity across reloads, which keeps its backends'
	// state: "" for a file route (RouteKey of its hosts), "<source>/<RouteKey>"
	// for a discovered one (set by package discovery).
	Key string
	// Origin names where the route came from: "<file>:<line>" for the
	// config file, "kubernetes <namespace>/<service>", "docker <container>".
	Origin string
	// BackendOrigin names where each backend came from when that differs
	// from Origin (the containers of one Docker route); nil, or "" at an
	// index, means Origin.
	BackendOrigin []string
	// Wake names the target that sleeps and is woken by a login (`wake`);
	// nil: the route's servers always run.
	Wake *wake.Spec
	// WakeSettings are the route's `holdFor`, `idleAfter`, `asleepMotd` and `loadingMotd`
	// over `config.lite.wake`, resolved. They matter only with Wake.
	WakeSettings WakeDefaults
	// Players are who may join the route, besides config.lite.players (players.go).
	Players Players
	// Transfer makes this a redirect route (transfer.go); nil: not one.
	Transfer *Transfer
	// TransferHold parks players past holdFor on a wake route (transfer.go).
	TransferHold TransferHold
}

// fileOrigin names a file route's origin, "<file>:<line>".
func fileOrigin(file string, line int) string {
	if file == "" {
		file = "config"
	}
	return file + ":" + strconv.Itoa(line)
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

// decodeRoutes decodes `routes`; health is the global healthCheck as written.
func (d *decoder) decodeRoutes(e entry, l *Lite, health HealthCheck) {
	items, ok := d.sequence(e)
	if !ok {
		return
	}
	if len(items) == 0 {
		if !l.Discovery.Any() {
			d.invalid(e, "no routes configured: want at least one (or enable a discovery source)")
		}
		return
	}
	metas := make([]routeMeta, 0, len(items))
	for _, it := range items {
		if d.budget.exhausted {
			return // reported; the rest of the table is not looked at
		}
		r, meta := d.decodeRoute(it, l, health)
		l.Routes = append(l.Routes, r)
		metas = append(metas, meta)
	}
	if len(d.errs) == 0 {
		d.lintRoutes(l, metas)
		d.lintRealIP(l, metas)
		d.lintCatchAll(l, metas)
	}
}

func (d *decoder) decodeRoute(e entry, l *Lite, health HealthCheck) (Route, routeMeta) {
	r := Route{
		Strategy:     strategy.Default,
		CachePingTTL: defaultCachePingTTL,
		Disconnect:   Messages{Unavailable: l.Disconnect.Unavailable},
		HealthCheck:  l.HealthCheck,
		P2C:          defaultP2C(),
		Status:       StatusBackend,
		WakeSettings: l.Wake,
		Line:         resolve(e.val).Line,
	}
	r.Origin = fileOrigin(d.file, r.Line)
	meta := routeMeta{line: r.Line, path: e.path}
	var tcpShield, realIP bool
	handlers := map[string]handler{
		"host": func(f entry) { r.Host, meta.hosts = d.hosts(f) },
		"backend": func(f entry) {
			r.Backend = []string{} // over the cap: reported, not also missing
			if !d.overCap(f, MaxBackendsPerRoute, "backends") {
				r.Backend, meta.backends, r.Capacity = d.backendList(f)
			}
		},
		"strategy":          func(f entry) { d.strategy(f, &r.Strategy) },
		"cachePingTTL":      func(f entry) { d.cachePingTTL(f, &r.CachePingTTL) },
		"fallback":          func(f entry) { r.Fallback = d.decodeFallback(f) },
		"proxyProtocol":     func(f entry) { d.boolean(f, &r.ProxyProtocol) },
		"tcpShieldRealIP":   func(f entry) { d.boolean(f, &tcpShield) },
		"modifyVirtualHost": func(f entry) { d.boolean(f, &r.ModifyVirtualHost) },
		"disconnect":        func(f entry) { d.decodeMessages(f, &r.Disconnect, true) },
		"healthCheck":       func(f entry) { _, r.HealthCheck = d.decodeHealthCheck(f, health) },
		"status":            func(f entry) { d.statusMode(f, &r.Status) },
		"realIP": func(f entry) {
			if d.boolean(f, &realIP) {
				d.warnf(f.key.Line, f.path, "deprecated: use tcpShieldRealIP")
			}
		},
	}
	maps.Copy(handlers, d.p2cHandlers(&r.P2C))
	var tuned entry
	maps.Copy(handlers, d.wakeHandlers(&r, &tuned))
	maps.Copy(handlers, d.playersHandler(&r, l))
	maps.Copy(handlers, d.transferHandler(&r))
	ok := d.mapping(e, handlers, nil)
	r.TCPShieldRealIP = tcpShield || realIP
	if ok {
		d.lintP2C(&r, meta)
		d.lintWake(&r, tuned)
	}
	if ok && r.Host == nil {
		d.errorf(r.Line, child(e.path, "host"), ErrMissing, "missing (want a host pattern or a list of them)")
	}
	if ok && r.Backend == nil {
		d.errorf(r.Line, child(e.path, "backend"), ErrMissing, "missing (want host[:port] or a list of them)")
	}
	return r, meta
}

// errLongPattern is why a host pattern over maxHostPattern is rejected.
var errLongPattern = errors.New("longer than " + strconv.Itoa(maxHostPattern) + " bytes; no client sends a host that long")

// hosts decodes `host`.
func (d *decoder) hosts(e entry) ([]string, []listItem) {
	if d.overCap(e, MaxHostsPerRoute, "host patterns") {
		return []string{}, nil
	}
	return d.addresses(e, "host pattern", func(s string) error {
		// An empty pattern is allowed: it matches only an empty host, as in Gate.
		if len(s) > maxHostPattern {
			return errLongPattern
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
// at the line of the host or backend concerned. Lint compares every host with
// every earlier one, so a table too large to lint quickly is not linted; that
// costs warnings only, never correctness.
func (d *decoder) lintRoutes(l *Lite, metas []routeMeta) {
	specs := l.Specs()
	if _, err := route.Compile(specs); err != nil {
		d.errorf(0, "config.lite.routes", ErrInvalid, "%v", err)
		return
	}
	if lintCost(specs) > maxLintCost {
		patterns := 0
		for _, s := range specs {
			patterns += len(s.Hosts)
		}
		d.warnf(metas[0].line, "config.lite.routes",
			"not checked for hosts that never match: %d host patterns in %d routes are too many to compare pairwise", patterns, len(specs))
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

// maxLintCost caps lintCost. A unit is about a nanosecond of route.Lint on a
// current server, so linting stays under about 0.2s; tables of up to a few
// thousand routes are linted.
const maxLintCost = 3 << 27

// pairCost weighs one host-with-earlier-host comparison against one byte
// compared in matching; equal strings are compared bytesPerUnit bytes at a
// time.
const (
	pairCost     = 8
	bytesPerUnit = 16
)

// lintCost bounds the work of route.Lint on specs from above. Each host is
// compared with every earlier host (byte by byte when their lengths are
// equal), and a literal host is matched against every earlier wildcard
// pattern. Matching places a pattern's first and last segment directly, in
// up to len(pattern); only the segments between two stars are searched for,
// in up to len(host)*len(pattern). Each templated backend is checked against
// every host of its route. Counting stops once over maxLintCost.
func lintCost(specs []route.Spec) int {
	cost, earlier := 0, 0
	placedLen, searchedLen := 0, 0 // total length of earlier patterns with < 2 and >= 2 stars
	sameLen := make(map[int]int)   // earlier hosts by length
	for _, s := range specs {
		templated, hostLen := 0, 0
		for _, b := range s.Backends {
			cost += len(b)
			if route.MaxParam(b) > 0 {
				templated++
			}
		}
		for _, h := range s.Hosts {
			cost += pairCost*earlier + sameLen[len(h)]*len(h)/bytesPerUnit + len(h)
			switch {
			case route.Wildcards(h) == 0:
				cost += placedLen + searchedLen*len(h)
			case strings.Count(h, "*") < 2:
				placedLen += len(h)
			default:
				searchedLen += len(h)
			}
			earlier++
			sameLen[len(h)]++
			hostLen += len(h)
			if cost > maxLintCost {
				return cost
			}
		}
		cost += templated * hostLen
	}
	return cost
}
