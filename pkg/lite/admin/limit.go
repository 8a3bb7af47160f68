package admin

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
)

// ProbeSlots is how many of the API's connections only health and readiness probes
// may be busy on: the other requests are answered 503 rather than take them, so a
// probe always finds a connection that is quiet (and can be cut) or one a probe
// frees within microseconds.
const ProbeSlots = 2

// limitListener keeps the API within lite.AdminConns descriptors, the number the
// proxy's open-files budget keeps for it, without letting the clients that hold them
// starve the probes. It holds at most max-1 connections, the last descriptor being
// the one it has just accepted. A newcomer takes the slot of a quiet connection (idle
// between requests, or still sending its request) rather than wait for it to time
// out: first one of its own address's if that address holds its share, else the
// least recently active one of the address holding the most. Connections whose
// handler is running are never cut; when every slot is busy the newcomer waits for
// one (handlers are bounded by the server's WriteTimeout).
type limitListener struct {
	net.Listener
	max, perSource int

	mu       sync.Mutex
	conns    map[*trackedConn]struct{}
	bySource map[netip.Addr]int
	tick     uint64 // orders connections by when they last went quiet

	changed   chan struct{} // a slot freed or a connection went quiet (capacity 1)
	done      chan struct{}
	closeOnce sync.Once
}

// limitConns limits ln to n descriptors; one address may hold half the slots.
func limitConns(ln net.Listener, n int) *limitListener {
	held := max(1, n-1)
	return &limitListener{Listener: ln, max: held, perSource: max(1, held/2),
		conns: make(map[*trackedConn]struct{}), bySource: make(map[netip.Addr]int),
		changed: make(chan struct{}, 1), done: make(chan struct{})}
}

// trackedConn is one admitted connection. Its fields but Conn and src are guarded by
// the listener's mu.
type trackedConn struct {
	net.Conn
	l     *limitListener
	src   netip.Addr
	busy  bool   // a handler runs on it: it is never cut
	quiet uint64 // the listener's tick when it was accepted or last went idle
}

func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.admit(c)
}

// admit finds c a slot, waiting while every slot is busy.
func (l *limitListener) admit(c net.Conn) (*trackedConn, error) {
	tc := &trackedConn{Conn: c, l: l, src: sourceOf(c)}
	for {
		l.mu.Lock()
		victim, ok := l.choose(tc.src)
		if ok {
			l.add(tc)
		}
		l.mu.Unlock()
		if victim != nil {
			_ = victim.Conn.Close() // its server goroutine sees the error and ends
		}
		if ok {
			return tc, nil
		}
		select {
		case <-l.changed:
		case <-l.done:
			_ = c.Close()
			return nil, net.ErrClosed
		}
	}
}

// choose decides under mu whether a connection from src may be admitted now, and
// which connection it replaces (removed already, for the caller to close). An address
// past its share whose connections are all busy (for the moment a handler runs) gets
// a free or quiet slot like any other.
func (l *limitListener) choose(src netip.Addr) (victim *trackedConn, ok bool) {
	if l.bySource[src] >= l.perSource {
		if victim = l.quietest(src); victim != nil {
			l.remove(victim)
			return victim, true
		}
	}
	if len(l.conns) < l.max {
		return nil, true
	}
	if victim = l.quietest(netip.Addr{}); victim != nil {
		l.remove(victim)
		return victim, true
	}
	return nil, false
}

// quietest is the connection quiet the longest of src, or when src is the zero
// address of the address holding the most; nil if every one is busy.
func (l *limitListener) quietest(src netip.Addr) *trackedConn {
	var best *trackedConn
	for c := range l.conns {
		if c.busy || (src.IsValid() && c.src != src) {
			continue
		}
		if best == nil || l.bySource[c.src] > l.bySource[best.src] ||
			(l.bySource[c.src] == l.bySource[best.src] && c.quiet < best.quiet) {
			best = c
		}
	}
	return best
}

func (l *limitListener) add(c *trackedConn) {
	l.tick++
	c.quiet = l.tick
	l.conns[c] = struct{}{}
	l.bySource[c.src]++
}

// remove frees c's slot (once: a connection already cut is no longer listed).
func (l *limitListener) remove(c *trackedConn) {
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if l.bySource[c.src]--; l.bySource[c.src] == 0 {
		delete(l.bySource, c.src)
	}
}

func (l *limitListener) signal() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// connState is the http.Server's ConnState hook: a connection back to idle has
// written its whole answer and may be cut again.
func (l *limitListener) connState(c net.Conn, st http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok || st != http.StateIdle {
		return
	}
	l.mu.Lock()
	tc.busy = false
	l.tick++
	tc.quiet = l.tick
	l.mu.Unlock()
	l.signal()
}

type connKey struct{}

// connContext is the http.Server's ConnContext hook: it lets markBusy find the
// connection a request came on.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// markBusy marks a request's connection as not to be cut until it is idle again,
// and keeps ProbeSlots connections for the probes and up to StreamSlots for event
// streams, which last: other requests past their budget are answered 503 at once.
func (l *limitListener) markBusy(next http.Handler) http.Handler {
	streams := make(chan struct{}, min(StreamSlots, max(0, l.max-ProbeSlots-1)))
	api := make(chan struct{}, max(1, l.max-ProbeSlots-cap(streams)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tc, ok := r.Context().Value(connKey{}).(*trackedConn); ok {
			l.mu.Lock()
			tc.busy = true
			l.mu.Unlock()
		}
		if r.URL.Path != PathHealthz && r.URL.Path != PathReadyz {
			slots := api
			if r.URL.Path == PathEvents {
				slots = streams
			}
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			default:
				w.Header().Set("Retry-After", "1")
				writeText(w, http.StatusServiceUnavailable, "admin API busy; try again")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.remove(c)
	c.l.mu.Unlock()
	c.l.signal()
	return err
}

// sourceOf is the address a connection counts against; connections without an IP
// address share the zero one.
func sourceOf(c net.Conn) netip.Addr {
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}
