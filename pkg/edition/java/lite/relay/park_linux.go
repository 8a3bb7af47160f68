//go:build linux

package relay

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// parking runs one direction without a goroutine of its own while its source sends
// nothing (see the package doc for the states). Each burst is spliced on the poller's
// goroutine (a packet or two) or by a short-lived worker (more than that, or a
// destination not ready to take it), after which the direction parks again.
type parking struct {
	d  *dir
	sp *splicer
	p  *poller
	id uint64

	mu    sync.Mutex
	state parkState
	// srcGone: the poller saw the source hang up or fail (names a stall's error).
	srcGone atomic.Bool

	// ctlOp and ctlErr carry an epoll_ctl through Control without a closure per call.
	ctlOp  int
	ctlErr error
	ctlFn  func(fd uintptr)
}

// linkPark is what a link's directions share in the poller: the poller and the shard
// it came from, so the link gives its one reference back.
type linkPark struct {
	p  *poller
	sh *shard
}

// inlineSteps bounds the work done on the poller's goroutine for one wake-up: a packet
// and the look that finds nothing more. Longer bursts go to a worker goroutine, so one
// busy player cannot hold up the others' wake-ups.
const inlineSteps = 2

// start parks both directions in one of the relay's pollers between TCP sockets;
// anything else (wrapped conns, no poller, NoPark) runs each on a worker.
func (r *Relay) start(l *link, o Options) {
	c, cok := l.up.src.(*net.TCPConn)
	b, bok := l.up.dst.(*net.TCPConn)
	if !cok || !bok || o.NoPark {
		l.up.runBlocking()
		l.down.runBlocking()
		return
	}
	p, sh, err := r.polls.acquire()
	if err != nil {
		l.up.runBlocking()
		l.down.runBlocking()
		return
	}
	l.park = linkPark{p: p, sh: sh}
	up, uerr := newSplicer(b, c, pipes)
	down, derr := newSplicer(c, b, pipes)
	if uerr != nil || derr != nil {
		l.up.runBlocking()
		l.down.runBlocking()
		return
	}
	// Only the player's bytes have a stall bound: a player that reads nothing for a
	// while is loading the world, a backend that reads nothing is stuck.
	l.up.startParked(up, p, true)
	l.down.startParked(down, p, false)
}

func (d *dir) startParked(sp *splicer, p *poller, stallBound bool) {
	pk := &parking{d: d, sp: sp, p: p, state: parked}
	if stallBound {
		sp.stall = pk
	}
	pk.ctlFn = func(fd uintptr) { pk.ctlErr = pk.p.ctl(pk.ctlOp, fd, pk.id) }
	pk.id = p.watch(pk)
	d.park = pk

	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.control(syscall.EPOLL_CTL_ADD) {
		d.l.r.parked.Add(1) // bytes already waiting fire at once; wake waits for this lock
		return
	}
	pk.state = blocking
	pk.startWorker()
}

// release gives back the link's poller reference once both directions are done.
func (l *link) release() {
	if l.park.p != nil {
		l.park.sh.release(l.park.p)
	}
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
		pk.d.l.r.parked.Add(-1)
	case was != parked && next == parked:
		pk.d.l.r.parked.Add(1)
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

// hangup is what epoll reports when the peer closed (FIN), reset or failed.
const hangup = syscall.EPOLLRDHUP | syscall.EPOLLHUP | syscall.EPOLLERR

// wake is the poller's callback: the socket is readable (or closed or failed). With
// inline, the poller has nothing else to do and serves the burst itself.
func (pk *parking) wake(events uint32, inline bool) {
	if events&hangup != 0 {
		pk.srcGone.Store(true)
	}
	if pk.on(evWake) != actServe {
		return
	}
	if inline {
		pk.serveNow()
		return
	}
	pk.startWorker()
}

// serveNow moves a short burst without blocking, on the poller's goroutine. Whatever
// could block, and the end of the direction (which completes the link and runs the
// owner's callback), goes to a worker.
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
		case stepEOF, stepFailed:
			pk.d.l.r.workers.Add(1)
			go func() {
				defer pk.d.l.r.workers.Add(-1)
				pk.end(pk.stallErr(err))
			}()
			return
		case stepBlocked:
			pk.startWorker()
			return
		}
	}
	pk.startWorker()
}

func (pk *parking) startWorker() {
	pk.d.l.r.workers.Add(1)
	go pk.work()
}

// work moves bytes on a worker goroutine until the source runs dry (then parks and
// exits) or ends.
func (pk *parking) work() {
	defer pk.d.l.r.workers.Add(-1)
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
			pk.end(pk.stallErr(err))
			return
		}
	}
}

// armStall bounds a write to the backend that would block: the splicer calls it on
// the first EAGAIN of a chunk. Once parking is over the linger deadline rules instead.
func (pk *parking) armStall() bool {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.state == blocking || pk.state == done {
		return false
	}
	_ = pk.sp.dst.SetWriteDeadline(time.Now().Add(StallGrace))
	return true
}

// disarmStall clears the bound once the chunk went through, unless parking ended
// meanwhile (stopParking then set the linger deadline, which must stay).
func (pk *parking) disarmStall() {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.state != blocking && pk.state != done {
		_ = pk.sp.dst.SetWriteDeadline(time.Time{})
	}
}

// stallErr names a write deadline armStall set.
func (pk *parking) stallErr(err error) error {
	if !pk.sp.stalled || !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	if pk.srcGone.Load() {
		return fmt.Errorf("%w: %w: %w", ErrClientGone, ErrBackendStalled, err)
	}
	return fmt.Errorf("%w: %w", ErrBackendStalled, err)
}

// park reports the direction idle: actRest parks it (holding no pipe and no buffer),
// actAgain means bytes came since the last look, actBlock that parking is over.
func (pk *parking) park() parkAction {
	pk.sp.release()
	return pk.on(evIdle)
}

// stopParking ends parking: the direction's worker waits in the runtime poller from
// now on, where deadline (set on its destination again here, as a disarmStall may
// have cleared it) and a Close reach it. Harmless once the direction ended.
func (d *dir) stopParking(deadline time.Time) {
	pk := d.park
	if pk == nil {
		return
	}
	pk.mu.Lock()
	if pk.state == done {
		pk.mu.Unlock()
		return
	}
	act := pk.onLocked(evStop)
	_ = pk.sp.dst.SetWriteDeadline(deadline)
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
	pk.d.finish(pk.sp.written, err)
}
