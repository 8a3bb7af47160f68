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
// stall bound, the linger) or by Abort; and what the end does (closes the sockets,
// completes the link).

// Why a parked direction ended when it did not end by itself.
var (
	errAborted = fmt.Errorf("relay aborted: %w", net.ErrClosed)
	// errStopped: the other direction failed, which ends the session at once.
	errStopped = fmt.Errorf("other direction failed: %w", os.ErrDeadlineExceeded)
	// errLinger: the other direction ended cleanly LingerAfterHalfClose ago.
	errLinger = fmt.Errorf("no end within %v of the other direction's: %w", LingerAfterHalfClose, os.ErrDeadlineExceeded)
)

// blocked notes that d's destination took no more. The player's bytes wait under the
// stall bound: the backend must accept some of them within StallTimeout (LeftGrace
// once the player has gone), counted afresh each time it accepts any.
func (l *link) blocked(d *dir) {
	io := &d.io
	if !io.waiting {
		io.waiting = true
		l.r.waiting.Add(1)
	}
	lp := &l.lp
	if d.side != Client || lp.timerKind == timerLinger {
		return
	}
	if lp.timerKind == timerNone || d.n != lp.stallMark {
		lp.stallMark = d.n
		l.setTimer(timerStall, l.stallWait())
	}
}

func (l *link) stallWait() time.Duration {
	if l.lp.clientGone {
		return min(LeftGrace, l.r.stallTimeout())
	}
	return l.r.stallTimeout()
}

// setTimer arms the link's timer for kind, after from now.
func (l *link) setTimer(kind uint8, after time.Duration) {
	lp := &l.lp
	lp.timerKind, lp.due = kind, time.Now().Add(after)
	if lp.timer == nil {
		lp.timer = time.AfterFunc(after, l.onTimer)
		return
	}
	lp.timer.Reset(after)
}

// onTimer runs on the timer's goroutine. The timer may have been moved or stopped
// after it fired, so it acts only on what is still due.
func (l *link) onTimer() {
	lp := &l.lp
	lp.mu.Lock()
	if wait := time.Until(lp.due); !lp.closed && lp.timerKind != timerNone && wait > 0 {
		lp.timer.Reset(wait)
		lp.mu.Unlock()
		return
	}
	switch kind := lp.timerKind; {
	case lp.closed || kind == timerNone:
	case kind == timerLinger:
		lp.timerKind = timerNone
		l.stopDir(&l.up, errLinger)
		l.stopDir(&l.down, errLinger)
	case l.up.n != lp.stallMark: // the backend took bytes since: a new bound
		lp.stallMark = l.up.n
		l.setTimer(timerStall, l.stallWait())
	default:
		lp.timerKind = timerNone
		l.endDir(&l.up, l.stallErr())
	}
	l.unlock()
}

// stallErr names why the player's bytes waited too long.
func (l *link) stallErr() error {
	if l.lp.clientGone {
		return fmt.Errorf("%w: %w: %w", ErrClientGone, ErrBackendStalled, os.ErrDeadlineExceeded)
	}
	return fmt.Errorf("%w for %v: %w", ErrBackendStalled, l.r.stallTimeout(), os.ErrDeadlineExceeded)
}

// endDir ends d (err nil: its source ended and everything was delivered) and bounds
// the other direction: a clean end half-closes d's destination (its peer reads EOF) and
// gives the other direction LingerAfterHalfClose; an error ends it at once.
func (l *link) endDir(d *dir, err error) {
	if d.io.ended {
		return
	}
	l.stopDir(d, err)
	if err == nil {
		_ = syscall.Shutdown(d.dstFD(), syscall.SHUT_WR)
	}
	o := d.other()
	switch {
	case o.io.ended:
	case err != nil:
		l.stopDir(o, errStopped)
	default:
		l.setTimer(timerLinger, LingerAfterHalfClose)
	}
}

// stopDir marks d ended with err and gives back what it held. A pipe with bytes in it
// is closed by the pool, never reused.
func (l *link) stopDir(d *dir, err error) {
	io := &d.io
	if io.ended {
		return
	}
	io.ended, d.err = true, err
	l.first.CompareAndSwap(0, int32(d.side))
	if io.waiting {
		io.waiting = false
		l.r.waiting.Add(-1)
	}
	if io.buf != nil {
		l.r.bufs.Put(io.buf)
		io.buf = nil
	}
	if io.pipe != nil {
		l.dropPipe(d)
	}
	l.r.parked.Add(-1)
}

// unlock releases the link's lock; once both directions ended it first closes the
// sockets, and completes the link on a goroutine of its own (the owner's callback
// may take its time; this may run on the poller).
func (l *link) unlock() {
	lp := &l.lp
	end := l.up.io.ended && l.down.io.ended && !lp.closed
	if end {
		lp.closed = true
		if lp.timer != nil {
			lp.timer.Stop()
			lp.timerKind = timerNone
		}
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
	if !lp.closed {
		l.stopDir(&l.up, errAborted)
		l.stopDir(&l.down, errAborted)
	}
	l.unlock()
	return true
}
