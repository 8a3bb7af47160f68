//go:build linux

package lite

import (
	"net"
	"sync"
	"sync/atomic"
	"syscall"
)

// parking runs a session's client-to-backend direction without a goroutine of its own
// while the player sends nothing: the client socket sits in the relay poller, and each
// burst is spliced on the poller's goroutine (a packet or two) or by a short-lived
// worker (more than that, or a backend not ready to take it), after which the
// direction parks again. Players send little (movement, chat, a few packets a second),
// so this direction idles nearly all the time, and an idle session then costs its two
// sockets and the one goroutine that serves the backend-to-client direction.
//
// Parking ends for good (blocking) when the other direction ends or the socket fails:
// from then on a worker waits in the runtime poller like any reader, so the linger
// deadline and shutdown's Close reach it.
type parking struct {
	u  *upstream
	sp *splicer
	p  *poller
	id uint64

	mu sync.Mutex
	// parked: idle, no one serving the direction; the next event wakes it.
	parked bool
	// pending: an event came while the direction was being served; the server must
	// look again before it parks (the socket is edge-triggered).
	pending bool
	// blocking: parking is over.
	blocking bool

	// ctlOp and ctlErr carry an epoll_ctl through Control without a closure per call.
	ctlOp  int
	ctlErr error
	ctlFn  func(fd uintptr)
}

// inlineSteps bounds the work done on the poller's goroutine for one wake-up: a packet
// and the look that finds nothing more. Longer bursts go to a worker goroutine, so one
// busy player cannot hold up the others' wake-ups.
const inlineSteps = 2

// parkingOff makes every session give its upstream direction a goroutine of its own,
// as without parking; benchmarks compare the two. The zero value parks.
var parkingOff atomic.Bool

// startUpstream starts the client-to-backend direction: parked in the relay poller
// between TCP sockets, else (wrapped conns, no poller) on its own goroutine.
func startUpstream(u *upstream) {
	dst, dok := u.dst.(*net.TCPConn)
	src, sok := u.src.(*net.TCPConn)
	if !dok || !sok || parkingOff.Load() {
		u.runBlocking()
		return
	}
	sp, err := newSplicer(dst, src, pipes)
	if err != nil {
		u.runBlocking()
		return
	}
	p, err := acquirePoller()
	if err != nil {
		go func() { u.finish(sp.run()) }()
		return
	}
	pk := &parking{u: u, sp: sp, p: p}
	pk.ctlFn = func(fd uintptr) { pk.ctlErr = pk.p.ctl(pk.ctlOp, fd, pk.id) }
	pk.id = p.watch(pk)
	u.park = pk

	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.control(syscall.EPOLL_CTL_ADD) {
		pk.parked = true // bytes already waiting fire at once; wake waits for this lock
		return
	}
	pk.blocking = true
	go pk.work()
}

// control runs one epoll_ctl on the source socket; false if it is closed or refused.
// The caller holds pk.mu.
func (pk *parking) control(op int) bool {
	pk.ctlOp, pk.ctlErr = op, nil
	err := pk.sp.srcRaw.Control(pk.ctlFn)
	return err == nil && pk.ctlErr == nil
}

// wake is the poller's callback: the socket is readable (or closed or failed). With
// inline, the poller has nothing else to do and serves the burst itself.
func (pk *parking) wake(inline bool) {
	pk.mu.Lock()
	if !pk.parked {
		pk.pending = !pk.blocking
		pk.mu.Unlock()
		return
	}
	pk.parked = false
	pk.mu.Unlock()
	if inline {
		pk.serveNow()
		return
	}
	go pk.work()
}

// serveNow moves a short burst without blocking, on the poller's goroutine.
func (pk *parking) serveNow() {
	for range inlineSteps {
		switch r, err := pk.sp.stepNow(); r {
		case stepIdle:
			switch pk.park() {
			case parkDone:
				return
			case parkBlocking:
				go pk.work()
				return
			}
		case stepEOF:
			pk.end(nil)
			return
		case stepFailed:
			pk.end(err)
			return
		case stepBlocked:
			go pk.work()
			return
		}
	}
	go pk.work()
}

// work moves bytes on a goroutine of its own until the source runs dry (then parks
// and exits) or ends.
func (pk *parking) work() {
	for {
		pk.mu.Lock()
		wait := pk.blocking
		pk.mu.Unlock()
		switch r, err := pk.sp.step(wait); r {
		case stepIdle:
			if pk.park() == parkDone {
				return
			}
		case stepEOF:
			pk.end(nil)
			return
		case stepFailed:
			pk.end(err)
			return
		}
	}
}

// Outcomes of park.
const (
	parkDone     = iota // parked: the caller stops serving
	parkAgain           // bytes came meanwhile: look again
	parkBlocking        // parking is over: go on waiting in the runtime poller
)

// park marks the direction idle unless bytes came since the last look or parking is
// over. It holds no pipe and no buffer while parked.
func (pk *parking) park() int {
	pk.sp.release()
	pk.mu.Lock()
	defer pk.mu.Unlock()
	switch {
	case pk.blocking:
		return parkBlocking
	case pk.pending:
		pk.pending = false
		return parkAgain
	}
	pk.parked = true
	return parkDone
}

// stopParking ends parking: the direction's worker waits in the runtime poller from
// now on. Called once the backend-to-client direction ended (so the linger deadline
// applies) and harmless if this direction already ended.
func (u *upstream) stopParking() {
	pk := u.park
	if pk == nil {
		return
	}
	pk.mu.Lock()
	wasParked := pk.parked
	pk.parked, pk.pending, pk.blocking = false, false, true
	pk.control(syscall.EPOLL_CTL_DEL)
	pk.mu.Unlock()
	if wasParked {
		go pk.work()
	}
}

func (pk *parking) end(err error) {
	pk.sp.release()
	pk.mu.Lock()
	pk.blocking = true
	pk.control(syscall.EPOLL_CTL_DEL)
	pk.mu.Unlock()
	pk.p.forget(pk.id)
	pk.u.finish(pk.sp.written, err)
}

// releaseParking gives back the poller reference once the direction is done.
func (u *upstream) releaseParking() {
	if u.park != nil {
		releasePoller(u.park.p)
	}
}
