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
	sp splicer
	id uint64 // in the link's poller (d.l.park.p)

	mu    sync.Mutex
	state parkState
	// stallArmed: a write to the backend waits under the stall deadline (armStall),
	// so a hang-up of the player shortens it to LeftGrace (under mu).
	stallArmed bool
	// srcGone: the poller saw the source hang up or fail.
	srcGone atomic.Bool
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
	c, cok := l.client.(*net.TCPConn)
	b, bok := l.backend.(*net.TCPConn)
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
	craw, cerr := c.SyscallConn()
	braw, berr := b.SyscallConn()
	if cerr != nil || berr != nil {
		l.up.runBlocking()
		l.down.runBlocking()
		return
	}
	_ = l.up.pk.sp.init(b, c, craw, braw, pipes)
	_ = l.down.pk.sp.init(c, b, braw, craw, pipes)
	// Only the player's bytes have a stall bound: a player that reads nothing for a
	// while is loading the world, a backend that reads nothing is stuck. Both
	// directions are ready before either joins the poller: the first may end at once
	// and stop the second.
	l.up.prepare(p, true)
	l.down.prepare(p, false)
	l.up.pk.join()
	l.down.pk.join()
}

// prepare makes d a parked direction of poller p, not yet watching its socket.
func (d *dir) prepare(p *poller, stallBound bool) {
	pk := &d.pk
	pk.d, pk.state = d, parked
	if stallBound {
		pk.sp.stall = pk
	}
	d.parks = true
	d.l.r.parked.Add(1)
	pk.id = p.watch(pk) // after the writes above: the poller reads them through it
}

// join adds the source socket to the poller (bytes already waiting fire at once), or
// hands the direction to a worker if it cannot.
func (pk *parking) join() {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.state != parked || pk.control(syscall.EPOLL_CTL_ADD) {
		return // stopped meanwhile (a worker has it), or watched
	}
	if pk.onLocked(evStop) == actWorker {
		pk.startWorker()
	}
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
	return pk.d.l.park.p.control(pk.sp.srcRaw, op, pk.id) == nil
}

// hangup is what epoll reports when the peer is gone: a reset or failure, or both
// directions shut. A FIN alone (EPOLLRDHUP) is not: a half-closed player may still
// read, and its last bytes must still reach a paused backend.
const hangup = syscall.EPOLLHUP | syscall.EPOLLERR

// wake is the poller's callback: the socket is readable (or closed or failed). With
// inline, the poller has nothing else to do and serves the burst itself.
func (pk *parking) wake(events uint32, inline bool) {
	if events&hangup != 0 {
		pk.srcGone.Store(true)
		pk.hurryStall()
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
			pk.end(pk.stallErr(err), true)
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
			pk.end(nil, false)
			return
		case stepFailed:
			pk.end(pk.stallErr(err), false)
			return
		}
	}
}

// armStall bounds a write to the backend that would block: the splicer calls it on
// an EAGAIN, first of a chunk or after the backend took some of it, so the bound is
// on the backend accepting nothing. A player still connected gets StallTimeout, one
// who has gone LeftGrace. Once parking is over the linger deadline rules instead.
func (pk *parking) armStall() bool {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.state == blocking || pk.state == done {
		return false
	}
	wait := pk.d.l.r.stallTimeout()
	if pk.srcGone.Load() {
		wait = min(wait, LeftGrace)
	}
	pk.stallArmed = true
	_ = pk.sp.dst.SetWriteDeadline(time.Now().Add(wait))
	return true
}

// hurryStall is the poller seeing the player hang up or reset while its bytes wait
// for a stalled backend: nobody is left to wait for, so the write gets LeftGrace.
// (armStall reads srcGone under mu, so a hang-up between the two is never missed.)
func (pk *parking) hurryStall() {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.stallArmed && pk.state != blocking && pk.state != done {
		_ = pk.sp.dst.SetWriteDeadline(time.Now().Add(LeftGrace))
	}
}

// disarmStall clears the bound once the chunk went through, unless parking ended
// meanwhile (stopParking then set the linger deadline, which must stay).
func (pk *parking) disarmStall() {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	pk.stallArmed = false
	if pk.state != blocking && pk.state != done {
		_ = pk.sp.dst.SetWriteDeadline(time.Time{})
	}
}

// stallErr names a write deadline armStall set: the player left, or the backend
// accepted nothing for the whole stall timeout.
func (pk *parking) stallErr(err error) error {
	if !pk.sp.stalled || !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	if pk.srcGone.Load() {
		return fmt.Errorf("%w: %w: %w", ErrClientGone, ErrBackendStalled, err)
	}
	return fmt.Errorf("%w for %v: %w", ErrBackendStalled, pk.d.l.r.stallTimeout(), err)
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
	if !d.parks {
		return
	}
	pk := &d.pk
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

// end finishes the direction; onPoller says it runs on the poller's goroutine.
func (pk *parking) end(err error, onPoller bool) {
	pk.sp.release()
	pk.mu.Lock()
	pk.onLocked(evEnd)
	pk.control(syscall.EPOLL_CTL_DEL)
	pk.mu.Unlock()
	pk.d.l.park.p.forget(pk.id)
	pk.d.finish(pk.sp.written, err, onPoller)
}
