package status

import "sync"

// UnknownProtocol is the Key.Protocol of every protocol version a route has not
// learned, and the version such a key is fetched with (-1 is what pingers send when
// they speak no particular version; servers answer it with their own).
const UnknownProtocol int32 = -1

// DefaultProtocolsPerRoute is how many protocol versions a route remembers.
const DefaultProtocolsPerRoute = 16

// Protocols remembers, per route, the protocol versions that real clients use (those
// of admitted logins), and the version the route's backends last reported. A status key
// carries the client's protocol when it is a release's (IsRelease) or the route has
// learned it (KeyFor); every other number shares UnknownProtocol, so a client that
// sends a new number on every ping cannot make a new cache entry, or a new backend
// fetch, with each: a route and backend have at most len(releaseProtocols) + perRoute
// + 1 keys per pattern. Each route keeps at most its bound of learned versions, the
// least recently seen making room. Safe for concurrent use.
type Protocols struct {
	perRoute int
	mu       sync.Mutex
	tick     uint64
	routes   map[string][]seenProtocol
	native   map[string]int32 // by route: the version its backends last reported
}

type seenProtocol struct {
	v    int32
	last uint64 // tick of the last Learn
}

// NewProtocols returns an empty memory of perRoute versions a route (<= 0:
// DefaultProtocolsPerRoute).
func NewProtocols(perRoute int) *Protocols {
	if perRoute <= 0 {
		perRoute = DefaultProtocolsPerRoute
	}
	return &Protocols{perRoute: perRoute, routes: make(map[string][]seenProtocol), native: make(map[string]int32)}
}

// Learn records that a real client (or a backend) of route uses version v.
func (p *Protocols) Learn(route string, v int32) {
	if v == UnknownProtocol {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tick++
	seen := p.routes[route]
	oldest := 0
	for i := range seen {
		if seen[i].v == v {
			seen[i].last = p.tick
			return
		}
		if seen[i].last < seen[oldest].last {
			oldest = i
		}
	}
	if len(seen) < p.perRoute {
		p.routes[route] = append(seen, seenProtocol{v: v, last: p.tick})
		return
	}
	seen[oldest] = seenProtocol{v: v, last: p.tick}
}

// Reported records the version a backend of route answered with (0 is no version).
func (p *Protocols) Reported(route string, v int32) {
	if v == 0 {
		return
	}
	p.mu.Lock()
	p.native[route] = v
	p.mu.Unlock()
}

// FetchProtocol is the version a backend is asked with for a key of route with
// protocol v: v itself when it is a release's or the route knows it; for UnknownProtocol the version the
// route's backends last reported (so clients on the server's own version see it as
// compatible), or UnknownProtocol before any report. Never a number a client chose
// without the route having learned it, so the shared answer does not depend on which
// client missed first.
func (p *Protocols) FetchProtocol(route string, v int32) int32 {
	if v != UnknownProtocol {
		return v
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.native[route]; ok {
		return n
	}
	return UnknownProtocol
}

// Known reports whether route has learned version v.
func (p *Protocols) Known(route string, v int32) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.routes[route] {
		if s.v == v {
			return true
		}
	}
	return false
}

// KeyFor is the cache key of a ping: route and backend as given, the protocol when
// it is a release's or the route knows it (else UnknownProtocol), and as host the route's host pattern
// that matched, not the host the client typed. On an exact route the two are the
// same; on a wildcard route every host the pattern matches shares one answer per
// backend, so unique hosts cannot multiply entries or fetches (a template route
// still gets one key per expanded backend, and the miss limit bounds those).
func (p *Protocols) KeyFor(route, backend, pattern string, protocol int32) Key {
	if !IsRelease(protocol) && !p.Known(route, protocol) {
		protocol = UnknownProtocol
	}
	return Key{Route: route, Backend: backend, Protocol: protocol, Host: pattern}
}
