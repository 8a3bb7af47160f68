package relay

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// LingerAfterHalfClose is how long the second direction may keep flowing after the
// first one ended cleanly. Minecraft peers close as soon as they read EOF, so this only
// bounds a peer that never does; it is not a per-session timer (it is set once, at the
// end).
const LingerAfterHalfClose = 2 * time.Second

// StallTimeout is how long the client-to-backend direction waits for a backend that
// accepts no byte at all, while the player is still connected, before the session
// ends (ErrBackendStalled). It is the vanilla server's own patience with a silent peer
// (its read timeout is 30 s): a GC pause or a world save that stops the backend reading
// for seconds must not cost a player the bytes it sent meanwhile. The proxy buffers
// nothing beyond what it read; TCP flow control holds the player back. It applies to
// parked pipes (the default between TCP sockets), not to the linger after the other
// direction ended, which has its own deadline.
const StallTimeout = 30 * time.Second

// LeftGrace is how long the player's bytes may still wait for a stalled backend once
// the player has gone: the relay's poller saw its socket hang up or reset (that shows
// even with unread bytes queued), so the session ends (ErrClientGone) within about
// this long, not at StallTimeout. A player whose FIN is queued behind its own unsent
// bytes cannot be seen leaving; StallTimeout bounds that case.
const LeftGrace = time.Second

// ErrBackendStalled is the up direction's error when the backend accepted nothing for
// StallTimeout; ErrClientGone (wrapping it) when the player had gone meanwhile.
var (
	ErrBackendStalled = errors.New("backend stopped reading")
	ErrClientGone     = errors.New("player left while the backend was not reading")
)

// Side names a connection of a pipe.
type Side uint8

const (
	None    Side = iota
	Client       // the player: its direction is client to backend ("up")
	Backend      // the server: its direction is backend to client ("down")
)

func (s Side) String() string {
	switch s {
	case Client:
		return "client"
	case Backend:
		return "backend"
	}
	return "none"
}

// Options configure one pipe.
type Options struct {
	// NoPark gives each direction a goroutine of its own for the whole session
	// instead of handing the pipe to the relay's pollers. Benchmarks compare the two;
	// the zero value parks.
	NoPark bool
	// Pending is what an adopted session's previous relay read but had not written
	// (Moved.Up and Moved.Down): each direction writes its own first, before it reads
	// another byte, so the stream stays in order across the move.
	Pending Pending
}

// Pending is bytes read from a direction's source that its destination has not had
// yet: Up goes to the backend, Down to the player.
type Pending struct{ Up, Down []byte }

// Result is how a pipe ended.
type Result struct {
	// Up is the bytes moved client to backend, Down backend to client.
	Up, Down int64
	// First is the side whose direction ended first: the side that ended the session.
	First Side
	// UpErr and DownErr are why each direction ended; nil is a clean EOF.
	UpErr, DownErr error
	// Moved is set when the session did not end but was let go of (Detach): its
	// sockets and held bytes, for another relay to adopt. Up and Down count what was
	// written until then.
	Moved *Moved
}

// FirstErr is the error of the direction that ended first (nil if it ended cleanly).
func (r Result) FirstErr() error {
	if r.First == Client {
		return r.UpErr
	}
	return r.DownErr
}

// Relay moves bytes between pairs of connections. It owns the pollers that serve
// parked pipes and the counts Stats reports; the zero value is ready, and it needs no
// Close: a poller runs only while some pipe is parked in it.
// Instances share nothing but the process-wide pipe pool (see pool_linux.go).
type Relay struct {
	// BackendStall replaces StallTimeout for this relay's pipes (tests use a short one);
	// 0 is StallTimeout. Set it before the first Start.
	BackendStall time.Duration

	polls    pollers // the pollers that serve parked pipes (Linux only)
	sessions atomic.Int64
	parked   atomic.Int64
	waiting  atomic.Int64
	workers  atomic.Int64

	// pool replaces the process's pipe pool for this relay's parked pipes (tests
	// inject failures); nil is the shared one.
	pool *pipePool

	// bufs holds *[]byte of smallRead bytes for packets whose destination took no
	// more: rare, and given back once flushed, so pooled rather than per direction.
	bufs sync.Pool

	mu   sync.Mutex
	live *link // the pipes in progress, linked through link.prev/next, for Abort
	// aborts counts Abort calls (under mu): a Start that overlapped one aborts its
	// own pipe once it has started it, which Abort leaves alone until then.
	aborts uint64
	// moving (under mu): Detach ran and Resume has not; every pipe that starts
	// meanwhile is let go of as soon as it has started (detach.go).
	moving bool
}

// stallTimeout is how long a still-connected player's bytes wait for a backend that
// accepts none of them.
func (r *Relay) stallTimeout() time.Duration {
	if r.BackendStall > 0 {
		return r.BackendStall
	}
	return StallTimeout
}

// Stats is a snapshot of a relay's work.
type Stats struct {
	// Sessions is the pipes in progress.
	Sessions int
	// Parked is the directions served by a poller, with no goroutine of their own:
	// two per session between TCP sockets on Linux.
	Parked int
	// Waiting is the parked directions whose bytes wait for a destination that takes
	// no more right now (a backend not reading, a player on a slow link).
	Waiting int
	// Workers is the goroutines the relay runs besides its pollers: one per direction
	// of a pipe that does not park (NoPark, or connections other than two TCP sockets),
	// and one per ended pipe while its done callback runs.
	Workers int
	// Pollers is the poller goroutines running (at most GOMAXPROCS; 0 while no
	// pipe is parked).
	Pollers int
	// PipesOpen and PipesIdle are the process's splice pipes (2 descriptors each) and
	// how many of them wait in the pool unused. Process-wide, not per relay.
	PipesOpen, PipesIdle int
}

// Stats reports what the relay holds now.
func (r *Relay) Stats() Stats {
	s := Stats{
		Sessions: int(r.sessions.Load()),
		Parked:   int(r.parked.Load()),
		Waiting:  int(r.waiting.Load()),
		Workers:  int(r.workers.Load()),
		Pollers:  r.polls.running(),
	}
	s.PipesOpen, s.PipesIdle = pipeCounts()
	return s
}

// Pipe is Start that waits: it returns once the session ended.
func (r *Relay) Pipe(client, backend net.Conn, o Options) Result {
	ch := make(chan Result, 1)
	r.Start(client, backend, o, func(res Result) { ch <- res })
	return <-ch
}

// Start copies bytes both ways until the session ends, then calls done once with the
// result, on a goroutine of the relay's; it returns at once. A clean end of one
// direction half-closes the other side (FIN) and gives the opposite direction
// LingerAfterHalfClose; an error ends both at once. A side whose incoming stream was
// cut (by an error, the linger or Abort) is closed with a reset, not a FIN: a FIN
// always means the stream toward that peer arrived whole.
//
// Between two TCP sockets on Linux the relay takes the sockets over: it closes both
// connections (a duplicate descriptor keeps each socket open, in the relay's own
// poller only) and closes the sockets itself when the session ends, so done's Close
// of either connection is a harmless no-op. Anything else is copied by a goroutine per
// direction, and Start closes neither connection; done may.
func (r *Relay) Start(client, backend net.Conn, o Options, done func(Result)) {
	r.sessions.Add(1)
	l := &link{r: r, client: client, backend: backend, done: done}
	l.up = dir{l: l, side: Client}
	l.down = dir{l: l, side: Backend}
	l.left.Store(2)
	r.mu.Lock()
	l.next = r.live
	if r.live != nil {
		r.live.prev = l
	}
	r.live = l
	gen := r.aborts
	r.mu.Unlock()
	r.start(l, o)
	// Abort (shutdown) may have run while start readied the directions, which it
	// must not touch meanwhile: whichever of the two comes second under mu aborts.
	// Detach likewise.
	r.mu.Lock()
	l.started = true
	aborted, moving := r.aborts != gen, r.moving
	r.mu.Unlock()
	switch {
	case aborted:
		l.abort()
	case moving:
		l.detach()
	}
}

// Abort ends every pipe in progress now: a parked pipe ends at once with errors that
// wrap net.ErrClosed, a goroutine's connections get a deadline in the past. Shutdown
// calls it after closing the connections: a Close does not reach the sockets of a
// parked pipe, which the relay holds.
func (r *Relay) Abort() {
	r.mu.Lock()
	r.aborts++
	var links []*link
	for l := r.live; l != nil; l = l.next {
		if l.started { // the others abort themselves at the end of Start
			links = append(links, l)
		}
	}
	r.mu.Unlock()
	for _, l := range links {
		l.abort()
	}
}

// abort ends a parked pipe, or gives a goroutine's connections a deadline in the
// past. Harmless on a pipe that already ended.
func (l *link) abort() {
	if l.abortParked() {
		return
	}
	past := time.Unix(1, 0)
	_ = l.client.SetDeadline(past)
	_ = l.backend.SetDeadline(past)
}

// link is one pipe in progress: its two connections, its two directions and what
// happens once both ended. Every idle session keeps one, so every byte of it counts:
// link_size_linux_test.go keeps it small.
type link struct {
	r *Relay
	// client and backend are the pipe's connections; each dir picks from them.
	client, backend net.Conn

	up, down dir
	first    atomic.Int32 // the Side whose direction ended first
	left     atomic.Int32 // directions not yet finished (goroutine directions)
	done     func(Result)
	lp       linkLoop // the parked pipe's sockets and timer (Linux only)
	started  bool     // Start has readied both directions (under Relay.mu; see Abort)
	// prev and next link the relay's pipes in progress (Relay.live), under Relay.mu:
	// a list rather than a map, as every idle session pays for it.
	prev, next *link
}

// dir is one direction of a link: src is read, dst written. Both are the link's,
// picked by side rather than stored again.
type dir struct {
	l    *link
	n    int64
	err  error
	side Side    // whose bytes these are: Client for up
	io   dirLoop // the parked direction's state (Linux only)
}

// src is the connection the direction reads: the player's for up.
func (d *dir) src() net.Conn {
	if d.side == Client {
		return d.l.client
	}
	return d.l.backend
}

// dst is the connection the direction writes: the backend's for up.
func (d *dir) dst() net.Conn {
	if d.side == Client {
		return d.l.backend
	}
	return d.l.client
}

func (d *dir) other() *dir {
	if d.side == Client {
		return &d.l.down
	}
	return &d.l.up
}

// runBlocking runs the whole direction on one worker that waits for data, after
// writing what an earlier relay held for its destination (pending).
func (d *dir) runBlocking(pending []byte) {
	d.l.r.workers.Add(1)
	go func() {
		defer d.l.r.workers.Add(-1)
		var w int
		var err error
		if len(pending) > 0 {
			w, err = d.dst().Write(pending)
		}
		var n int64
		if err == nil {
			n, err = half(d.dst(), d.src())
		}
		d.finish(int64(w)+n, err)
	}()
}

// finish records the end of a goroutine's direction, half-closes its destination and
// bounds the other direction (through deadlines): after an error it stops at once,
// after a clean end it gets the linger. The last direction to finish completes the
// link. It is the last thing a direction does.
func (d *dir) finish(n int64, err error) {
	d.n, d.err = n, err
	d.l.first.CompareAndSwap(0, int32(d.side))
	endHalf(d.dst(), d.src(), err)
	if d.l.left.Add(-1) == 0 {
		d.l.complete()
	}
}

func (l *link) complete() {
	l.end(Result{Up: l.up.n, Down: l.down.n, First: Side(l.first.Load()), UpErr: l.up.err, DownErr: l.down.err})
}

// end takes the link out of the relay and tells its owner how it went.
func (l *link) end(res Result) {
	l.release()
	l.r.mu.Lock()
	if l.prev != nil {
		l.prev.next = l.next
	} else {
		l.r.live = l.next
	}
	if l.next != nil {
		l.next.prev = l.prev
	}
	l.prev, l.next = nil, nil
	l.r.mu.Unlock()
	l.r.sessions.Add(-1)
	l.done(res)
}
