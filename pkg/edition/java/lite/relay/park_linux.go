//go:build linux

package relay

import (
	"net"
	"sync"
	"syscall"
)

// parking runs a pipe's client-to-backend direction without a goroutine of its own
// while the player sends nothing (see the package doc for the states). Each burst is
// spliced on the poller's goroutine (a packet or two) or by a short-lived worker
// (more than that, or a backend not ready to take it), after which the direction
// parks again.
type parking struct {
	u  *upstream
	sp *splicer
	p  *poller
	id uint64

	mu    sync.Mutex
	state parkState

	// ctlOp and ctlErr carry an epoll_ctl through Control without a closure per call.
	ctlOp  int
	ctlErr error
	ctlFn  func(fd uintptr)
}

// inlineSteps bounds the work done on the poller's goroutine for one wake-up: a packet
// and the look that finds nothing more. Longer bursts go to a worker goroutine, so one
// busy player cannot hold up the others' wake-ups.
const inlineSteps = 2

// startUpstream starts the client-to-backend direction: parked in the relay's poller
// between TCP sockets, else (wrapped conns, no poller, NoPark) on a worker.
func (r *Relay) startUpstream(u *upstream, o Options) {
	dst, dok := u.dst.(*net.TCPConn)
	src, sok := u.src.(*net.TCPConn)
	if !dok || !sok || o.NoPark {
		u.runBlocking()
		return
	}
	sp, err := newSplicer(dst, src, pipes)
	if err != nil {
		u.runBlocking()
		return
	}
	p, err := r.polls.acquire()
	if err != nil {
		u.runBlocking()
		return
	}
	pk := &parking{u: u, sp: sp, p: p, state: parked}
	pk.ctlFn = func(fd uintptr) { pk.ctlErr = pk.p.ctl(pk.ctlOp, fd, pk.id) }
	pk.id = p.watch(pk)
	u.park = pk

	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.control(syscall.EPOLL_CTL_ADD) {
		r.parked.Add(1) // bytes already waiting fire at once; wake waits for this lock
		return
	}
	pk.state = blocking
	pk.startWorker()
}

// on applies one event under pk.mu and keeps the relay's parked count.
func (pk *parking) on(ev parkEvent) parkAction {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	return pk.onLocked(ev)
}

func (pk *parking) onLocked(ev parkEvent) parkAction {
	was := pk.state
	next, act := was.on(ev)
	pk.state = next
	switch {
	case was == parked && next != parked:
		pk.u.r.parked.Add(-1)
	case was != parked && next == parked:
		pk.u.r.parked.Add(1)
	}
	return act
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
	if pk.on(evWake) != actServe {
		return
	}
	if inline {
		pk.serveNow()
		return
	}
	pk.startWorker()
}

// serveNow moves a short burst without blocking, on the poller's goroutine.
func (pk *parking) serveNow() {
	for range inlineSteps {
		switch r, err := pk.sp.stepNow(); r {
		case stepIdle:
			switch pk.park() {
			case actRest:
				return
			case actBlock:
				pk.startWorker()
				return
			}
		case stepEOF:
			pk.end(nil)
			return
		case stepFailed:
			pk.end(err)
			return
		case stepBlocked:
			pk.startWorker()
			return
		}
	}
	pk.startWorker()
}

func (pk *parking) startWorker() {
	pk.u.r.workers.Add(1)
	go pk.work()
}

// work moves bytes on a worker goroutine until the source runs dry (then parks and
// exits) or ends.
func (pk *parking) work() {
	defer pk.u.r.workers.Add(-1)
	for {
		pk.mu.Lock()
		wait := pk.state == blocking
		pk.mu.Unlock()
		switch r, err := pk.sp.step(wait); r {
		case stepIdle:
			if pk.park() == actRest {
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

// park reports the direction idle: actRest parks it (holding no pipe and no buffer),
// actAgain means bytes came since the last look, actBlock that parking is over.
func (pk *parking) park() parkAction {
	pk.sp.release()
	return pk.on(evIdle)
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
	act := pk.onLocked(evStop)
	pk.control(syscall.EPOLL_CTL_DEL)
	pk.mu.Unlock()
	if act == actWorker {
		pk.startWorker()
	}
}

func (pk *parking) end(err error) {
	pk.sp.release()
	pk.mu.Lock()
	pk.onLocked(evEnd)
	pk.control(syscall.EPOLL_CTL_DEL)
	pk.mu.Unlock()
	pk.p.forget(pk.id)
	pk.u.finish(pk.sp.written, err)
}

// releaseParking gives back the poller reference once the direction is done.
func (u *upstream) releaseParking() {
	if u.park != nil {
		u.r.polls.release(u.park.p)
	}
}
