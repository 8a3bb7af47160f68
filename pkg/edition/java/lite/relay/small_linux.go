//go:build linux

package relay

import (
	"io"
	"os"
	"syscall"
)

// smallRead is the buffer a poller moves packets through itself: one read(2) and one
// write(2) for a packet, where a splice costs three calls (into the pipe, out of it,
// and one more that finds the socket dry). A read that fills it is the start of a
// burst, which goes on with splice. It is per poller, not per session, so its size
// costs an idle player nothing; it must stay within fallbackChunk, which holds what
// a write leaves behind.
const smallRead = 16 << 10

// stepFull is a small step whose read filled the buffer (all of it written): more may
// wait, and it is a burst's to move with splice.
const stepFull = stepBlocked + 1

// smallIO is a poller's packet buffer and the callbacks that read into it and write
// from it, bound once. Only the poller's goroutine uses it.
type smallIO struct {
	buf     []byte
	out     []byte // what write writes
	n       int    // bytes the last read got, or the last write took
	err     error  // the last call's error (EAGAIN included)
	readFn  func(fd uintptr) bool
	writeFn func(fd uintptr) bool
}

func newSmallIO() *smallIO {
	s := &smallIO{buf: make([]byte, smallRead)}
	s.readFn, s.writeFn = s.read, s.write
	return s
}

// read is one read(2); it never waits (the caller is the poller's goroutine).
func (s *smallIO) read(fd uintptr) bool {
	for {
		n, err := syscall.Read(int(fd), s.buf)
		if err == syscall.EINTR {
			continue
		}
		s.n, s.err = n, err
		return true
	}
}

// write writes out until dst takes no more; it never waits either.
func (s *smallIO) write(fd uintptr) bool {
	s.n, s.err = 0, nil
	for s.n < len(s.out) {
		n, err := syscall.Write(int(fd), s.out[s.n:])
		if n > 0 {
			s.n += n
			continue
		}
		if err == syscall.EINTR {
			continue
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		s.err = err
		break
	}
	return true
}

// stepSmall moves what src holds, up to the buffer's size, with one read and one
// write, without blocking: stepMoved when the read came short (all written), stepFull
// when it filled the buffer, stepIdle when there was nothing, stepEOF, stepFailed, or
// stepBlocked when dst took only part: the rest waits in sp (pend) for a blocking step,
// which also arms the stall bound.
func (sp *splicer) stepSmall(s *smallIO) (stepResult, error) {
	if err := sp.srcRaw.Read(s.readFn); err != nil {
		return stepFailed, err // closed, or past the read deadline
	}
	switch {
	case s.err == syscall.EAGAIN:
		return stepIdle, nil
	case s.err != nil:
		return stepFailed, os.NewSyscallError("read", s.err)
	case s.n == 0:
		return stepEOF, nil
	}
	read := s.n
	s.out = s.buf[:read]
	err := sp.dstRaw.Write(s.writeFn)
	sp.written += int64(s.n)
	switch {
	case err != nil:
		return stepFailed, err
	case s.n < read && s.err == syscall.EAGAIN:
		sp.stash(s.out[s.n:])
		return stepBlocked, nil
	case s.err != nil:
		return stepFailed, os.NewSyscallError("write", s.err)
	case read == len(s.buf):
		return stepFull, nil
	}
	return stepMoved, nil
}

// stash keeps b (what dst did not take) in the direction's chunk buffer for the next
// step to write first.
func (sp *splicer) stash(b []byte) {
	if sp.buf == nil {
		sp.buf = sp.pool.getBuf()
	}
	sp.n = int32(copy(*sp.buf, b))
	sp.pend, sp.err = true, nil
}

// flushPend writes the stashed bytes, inside dst's write loop like flush (false waits
// for dst; the stall bound is armed the same way). Once they are out the buffer goes
// back to the pool.
func (sp *splicer) flushPend(fd uintptr) bool {
	for sp.n > 0 {
		b := *sp.buf
		n, err := syscall.Write(int(fd), b[:sp.n])
		if n > 0 {
			copy(b, b[n:sp.n])
			sp.n -= int32(n)
			sp.written += int64(n)
			if sp.armed == armedNow {
				sp.armed = armedOld
			}
			continue
		}
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			sp.armOnce()
			return sp.noWait
		case nil:
			err = io.ErrNoProgress
		}
		sp.err, sp.flushed = err, true
		return true
	}
	sp.pend, sp.flushed = false, true
	sp.pool.bufs.Put(sp.buf)
	sp.buf = nil
	return true
}
