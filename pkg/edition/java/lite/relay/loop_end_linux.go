//go:build linux

package relay

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// How a parked pipe ends: by itself (an end of a source, an error), by its timer (the
// stall bound, the linger) or by Abort. When is the tables' (ends_linux.go); here is
// what their rows do, and what the last end does (closes the sockets, completes the
// link).

// Why a parked direction ended when it did not end by itself.
var (
	errAborted = fmt.Errorf("relay aborted: %w", net.ErrClosed)
	// errStopped: the other direction failed, which ends the session at once.
	errStopped = fmt.Errorf("other direction failed: %w", os.ErrDeadlineExceeded)
	// errLinger: the other direction ended cleanly LingerAfterHalfClose ago.
	errLinger = fmt.Errorf("no end within %v of the other direction's: %w", LingerAfterHalfClose, os.ErrDeadlineExceeded)
)

// step moves d by event ev as dirRules says, under the link's lock; err is why d ends
// on evFail and evStop. False, with nothing done, for a pair dirRules does not list.
func (l *link) step(d *dir, ev dirEvent, err error) bool {
	r := dirRules.lookup(d.io.state, ev)
	if !r.ok {
		return false
	}
	d.io.state = r.to
	if r.do != 0 {
		l.apply(d, r.do, err)
	}
	return true
}

// apply does what a dirRules row says besides the state (see act).
func (l *link) apply(d *dir, do act, err error) {
	if do&actWait != 0 {
		l.r.waiting.Add(1)
	}
	if do&actUnwait != 0 {
		l.r.waiting.Add(-1)
	}
	if do&(actStall|actUnstall) != 0 && d.side == Client {
		ev := tmFlushed
		if do&actStall != 0 {
			ev = tmHeld
			if d.n != l.lp.stallMark {
				ev = tmHeldMoved
			}
		}
		l.timerStep(ev)
	}
	if do&actRelease != 0 {
		l.releaseDir(d, err)
	}
	if do&actHalfClose != 0 {
		_ = syscall.Shutdown(d.dstFD(), syscall.SHUT_WR)
	}
	if do&actReset != 0 {
		resetFDOnClose(d.dstFD())
	}
	if o := d.other(); do&actLinger != 0 && o.io.state != dirEnded {
		l.timerStep(tmCleanEnd)
	}
	if do&actStopOther != 0 {
		l.step(d.other(), evStop, errStopped)
	}
}

// resetFDOnClose makes fd's socket send a reset, not a FIN, when the link closes it
// (SO_LINGER on, 0 s), and drop what it still queues for its peer: the stream toward
// that peer was cut, and a direct connection's abortive close drops it too.
func resetFDOnClose(fd int) {
	_ = syscall.SetsockoptLinger(fd, syscall.SOL_SOCKET, syscall.SO_LINGER, &syscall.Linger{Onoff: 1, Linger: 0})
}

// releaseDir records d's end and gives back what it held.
func (l *link) releaseDir(d *dir, err error) {
	d.err = err
	l.first.CompareAndSwap(0, int32(d.side))
	io := &d.io
	if io.buf != nil {
		l.r.putBuf(io.buf)
		io.buf = nil
	}
	if io.pipe != nil {
		l.dropPipe(d)
	}
	l.r.parked.Add(-1)
}

// timerStep moves the link's timer by event ev as timerRules says, under the link's
// lock. False, with nothing done, for a pair timerRules does not list.
func (l *link) timerStep(ev timerEvent) bool {
	lp := &l.lp
	r := timerRules.lookup(lp.timerKind, ev)
	if !r.ok {
		return false
	}
	lp.timerKind = r.to
	if r.do&actMark != 0 {
		lp.stallMark = l.up.n
	}
	switch {
	case r.do&actArmStall != 0:
		l.arm(l.stallWait())
	case r.do&actArmLinger != 0:
		l.arm(LingerAfterHalfClose)
	case r.do&actStop != 0 && lp.timer != nil:
		lp.timer.Stop()
	}
	if r.do&actFailUp != 0 {
		l.step(&l.up, evFail, l.stallErr())
	}
	if r.do&actCutBoth != 0 {
		l.step(&l.up, evStop, errLinger)
		l.step(&l.down, evStop, errLinger)
	}
	return true
}

// stallWait is how long the player's held bytes may wait for the backend now.
func (l *link) stallWait() time.Duration {
	if l.lp.clientGone {
		return min(LeftGrace, l.r.stallTimeout())
	}
	return l.r.stallTimeout()
}

// arm sets the link's timer to fire after from now.
func (l *link) arm(after time.Duration) {
	lp := &l.lp
	lp.due = time.Now().Add(after)
	if lp.timer == nil {
		lp.timer = time.AfterFunc(after, l.onTimer)
		return
	}
	lp.timer.Reset(after)
}

// onTimer runs on the timer's goroutine. The timer may have been moved or stopped
// after it fired, so it acts only on what is still due (timerRules refuses a timer
// that no longer runs).
func (l *link) onTimer() {
	lp := &l.lp
	lp.mu.Lock()
	if wait := time.Until(lp.due); lp.timerKind != timerNone && wait > 0 {
		lp.timer.Reset(wait)
		lp.mu.Unlock()
		return
	}
	ev := tmFired
	if l.up.n != lp.stallMark {
		ev = tmFiredMoved
	}
	l.timerStep(ev)
	l.unlock()
}

// stallErr names why the player's bytes waited too long.
func (l *link) stallErr() error {
	if l.lp.clientGone {
		return fmt.Errorf("%w: %w: %w", ErrClientGone, ErrBackendStalled, os.ErrDeadlineExceeded)
	}
	return fmt.Errorf("%w for %v: %w", ErrBackendStalled, l.r.stallTimeout(), os.ErrDeadlineExceeded)
}

// unlock releases the link's lock; once both directions ended it first closes the
// sockets, and completes the link on a goroutine of its own (the owner's callback
// may take its time; this may run on the poller).
func (l *link) unlock() {
	lp := &l.lp
	end := l.up.io.state == dirEnded && l.down.io.state == dirEnded && !lp.closed
	if end {
		lp.closed = true
		l.timerStep(tmClosed)
		for s := range lp.fd {
			lp.p.del(lp.fd[s])
			_ = syscall.Close(lp.fd[s])
			lp.p.forget(lp.id[s])
		}
	}
	lp.mu.Unlock()
	if !end {
		return
	}
	l.r.workers.Add(1)
	go func() {
		defer l.r.workers.Add(-1)
		l.complete()
	}()
}

// abortParked ends a parked pipe at once; false when the pipe is not parked.
func (l *link) abortParked() bool {
	lp := &l.lp
	if lp.p == nil {
		return false
	}
	lp.mu.Lock()
	l.step(&l.up, evStop, errAborted)
	l.step(&l.down, evStop, errAborted)
	l.unlock()
	return true
}
