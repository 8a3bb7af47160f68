//go:build linux

package lite

import (
	"net"
	"sync"
	"syscall"
)

// parking runs a session's client-to-backend direction without a goroutine of its own
// while the player sends nothing: the client socket sits armed in the relay poller,
// and a short-lived worker splices each burst, re-arms the socket and exits. Players
// send little (movement, chat, a few packets a second), so this direction idles
// nearly all the time, and an idle session then costs its two sockets and the one
// goroutine that serves the backend-to-client direction.
//
// Parking ends for good (blocking) when the other direction ends or the socket fails:
// from then on the worker waits in the runtime poller like any reader, so the linger
// deadline and shutdown's Close reach it.
type parking struct {
	u  *upstream
	sp *splicer
	p  *poller
	id uint64

	mu       sync.Mutex
	parked   bool // armed in the poller, no worker running
	blocking bool // parking is over

	// ctlOp and ctlErr carry an epoll_ctl through Control without a closure per call.
	ctlOp  int
	ctlErr error
	ctlFn  func(fd uintptr)
}

// startUpstream starts the client-to-backend direction: parked in the relay poller
// between TCP sockets, else (wrapped conns, no poller) on its own goroutine.
func startUpstream(u *upstream) {
	dst, dok := u.dst.(*net.TCPConn)
	src, sok := u.src.(*net.TCPConn)
	if !dok || !sok {
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

// wake is the poller's callback: the socket is readable (or closed or failed).
func (pk *parking) wake() {
	pk.mu.Lock()
	if !pk.parked {
		pk.mu.Unlock()
		return
	}
	pk.parked = false
	pk.mu.Unlock()
	go pk.work()
}

// work moves bytes until the source runs dry (then parks and exits) or ends.
func (pk *parking) work() {
	for {
		pk.mu.Lock()
		wait := pk.blocking
		pk.mu.Unlock()
		switch r, err := pk.sp.step(wait); r {
		case stepIdle:
			if pk.park() {
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

// park re-arms the socket unless parking is over; false means go on, blocking.
func (pk *parking) park() bool {
	pk.sp.release() // an idle direction holds no pipe and no buffer
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.blocking {
		return false
	}
	if !pk.control(syscall.EPOLL_CTL_MOD) {
		pk.blocking = true // closed or refused: the blocking step reports which
		return false
	}
	pk.parked = true
	return true
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
	pk.parked, pk.blocking = false, true
	if wasParked {
		pk.control(syscall.EPOLL_CTL_DEL)
	}
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
