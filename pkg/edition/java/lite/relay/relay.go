package relay

import (
	"net"
	"sync/atomic"
	"time"
)

// LingerAfterHalfClose is how long the second direction may keep flowing after the
// first one ended cleanly. Minecraft peers close as soon as they read EOF, so this only
// bounds a peer that never does; it is not a per-session timer (it is set once, at the
// end).
const LingerAfterHalfClose = 2 * time.Second

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
	// NoPark gives the client-to-backend direction a goroutine of its own for the
	// whole session instead of parking it in the relay's poller while the player
	// sends nothing. Benchmarks compare the two; the zero value parks.
	NoPark bool
}

// Result is how a pipe ended.
type Result struct {
	// Up is the bytes moved client to backend, Down backend to client.
	Up, Down int64
	// First is the side whose direction ended first: the side that ended the session.
	First Side
	// UpErr and DownErr are why each direction ended; nil is a clean EOF.
	UpErr, DownErr error
}

// FirstErr is the error of the direction that ended first (nil if it ended cleanly).
func (r Result) FirstErr() error {
	if r.First == Client {
		return r.UpErr
	}
	return r.DownErr
}

// Relay moves bytes between pairs of connections. It owns the poller that parked
// directions wait in and the counts Stats reports; the zero value is ready, and it
// needs no Close: the poller runs only while some pipe parks a direction in it.
// Instances share nothing but the process-wide pipe pool (see pool_linux.go).
type Relay struct {
	polls    pollers // the poller parked directions wait in (Linux only)
	sessions atomic.Int64
	parked   atomic.Int64
	workers  atomic.Int64
}

// Stats is a snapshot of a relay's work.
type Stats struct {
	// Sessions is the pipes in progress.
	Sessions int
	// Parked is the directions that wait in the poller with no goroutine.
	Parked int
	// Workers is the goroutines serving client-to-backend directions right now (each
	// pipe's caller serves the other direction).
	Workers int
	// Pollers is the poller goroutines running (0 while no direction parks).
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
		Workers:  int(r.workers.Load()),
		Pollers:  r.polls.running(),
	}
	s.PipesOpen, s.PipesIdle = pipeCounts()
	return s
}

// Pipe copies bytes both ways until the session ends. Between two TCP sockets on Linux
// each direction splices through a pipe borrowed only while bytes flow, and the
// client-to-backend direction parks without a goroutine between bursts, so an idle
// session holds its two sockets and the caller's goroutine, nothing else. A clean end
// of one direction half-closes the other side (FIN) and gives the opposite direction
// LingerAfterHalfClose; an error ends both at once. Pipe closes neither connection.
func (r *Relay) Pipe(client, backend net.Conn, o Options) Result {
	r.sessions.Add(1)
	defer r.sessions.Add(-1)
	var first atomic.Int32
	u := &upstream{r: r, dst: backend, src: client, first: &first, done: make(chan struct{})}
	r.startUpstream(u, o)
	down, downErr := half(client, backend)
	first.CompareAndSwap(0, int32(Backend))
	endHalf(client, backend, downErr)
	u.stopParking() // so the linger deadline endHalf set (or a Close) reaches it
	<-u.done
	u.releaseParking()
	return Result{Up: u.n, Down: down, First: Side(first.Load()), UpErr: u.err, DownErr: downErr}
}

// upstream is the client-to-backend direction of a pipe. The backend-to-client
// direction runs on Pipe's caller; this one runs on a worker goroutine, or on Linux
// parks between bursts without one (see parking).
type upstream struct {
	r        *Relay
	dst, src net.Conn
	first    *atomic.Int32
	done     chan struct{} // closed by finish
	n        int64
	err      error
	park     *parking // nil unless the direction parks
}

// runBlocking runs the whole direction on one worker that waits for data.
func (u *upstream) runBlocking() {
	u.r.workers.Add(1)
	go func() {
		defer u.r.workers.Add(-1)
		u.finish(half(u.dst, u.src))
	}()
}

// finish records the direction's end, half-closes the backend and bounds the other
// direction, then lets Pipe go on. It is the last thing the direction does.
func (u *upstream) finish(n int64, err error) {
	u.n, u.err = n, err
	u.first.CompareAndSwap(0, int32(Client))
	endHalf(u.dst, u.src, err)
	close(u.done)
}

// endHalf finishes the direction src -> dst: it half-closes dst (the peer reads EOF)
// and bounds the opposite direction, which reads from dst and writes to src. After a
// clean end it may go on for the linger; after an error it stops now.
func endHalf(dst, src net.Conn, err error) {
	closeWrite(dst)
	deadline := time.Now()
	if err == nil {
		deadline = deadline.Add(LingerAfterHalfClose)
	}
	_ = dst.SetReadDeadline(deadline)
	_ = src.SetWriteDeadline(deadline)
}

type closeWriter interface{ CloseWrite() error }

func closeWrite(c net.Conn) {
	if cw, ok := c.(closeWriter); ok {
		_ = cw.CloseWrite()
		return
	}
	if u, ok := c.(interface{ Raw() net.Conn }); ok {
		closeWrite(u.Raw())
		return
	}
	_ = c.Close()
}
