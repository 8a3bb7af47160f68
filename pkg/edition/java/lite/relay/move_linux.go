//go:build linux

package relay

import (
	"os"
	"syscall"
	"unsafe"
)

// How a parked direction moves its bytes within a turn: a packet through the poller's
// buffer, a burst through a pooled pipe, what the destination did not take flushed on
// its next writable edge. What each outcome means for the direction is dirRules'.

// readSmall moves one read's worth through the poller's buffer: a read, then a write
// of what it got. What the destination does not take waits in a buffer of the
// direction's own until it does.
func (l *link) readSmall(d *dir) {
	io := &d.io
	buf := l.lp.p.buf
	n, errno := rawIO(syscall.SYS_READ, d.srcFD(), buf)
	switch {
	case errno == syscall.EAGAIN:
		io.readable = false
		return
	case errno == syscall.EINTR:
		return
	case errno != 0:
		l.step(d, evFail, os.NewSyscallError("read", errno))
		return
	case n == 0:
		l.step(d, evEOF, nil)
		return
	}
	w, errno := writeAll(d.dstFD(), buf[:n])
	d.n += int64(w)
	switch {
	case errno == syscall.EAGAIN:
		b := l.r.getBuf()
		io.buf, io.off, io.end = b, 0, int32(copy(*b, buf[w:n]))
		io.writable = false
		l.step(d, evBlocked, nil)
		return
	case errno != 0:
		l.step(d, evFail, os.NewSyscallError("write", errno))
		return
	}
	switch {
	case n < len(buf) && !io.state.draining():
		// A short read emptied the socket, and the next bytes raise a new edge: the
		// read that would only learn the socket is dry is not needed.
		io.readable = false
	case n == len(buf):
		io.bulk = true
	}
}

// spliceIn moves a burst's next chunk from the source into a pooled pipe, which the
// next flush empties into the destination. Without a pipe to be had (the descriptor
// budget) the burst goes on through the poller's buffer.
func (l *link) spliceIn(d *dir) {
	io := &d.io
	if io.pipe == nil {
		pp, err := l.r.pipes().get()
		if err != nil {
			io.bulk = false
			l.readSmall(d)
			return
		}
		io.pipe = pp
	}
	n, errno := rawSplice(d.srcFD(), io.pipe.w, pipeSize)
	switch {
	case errno == syscall.EAGAIN:
		io.readable, io.bulk, io.stream = false, io.stream, false
		l.dropPipe(d)
	case errno == syscall.EINTR:
	case errno != 0:
		l.step(d, evFail, os.NewSyscallError("splice", errno))
	case n == 0:
		l.step(d, evEOF, nil)
	default:
		io.pipe.buffered += n
		io.stream = io.stream || n >= smallRead
	}
}

// flush writes what d holds for its destination: true once all of it went.
func (l *link) flush(d *dir) bool {
	io := &d.io
	var n int
	var errno syscall.Errno
	op := "write"
	if io.buf != nil {
		n, errno = writeAll(d.dstFD(), (*io.buf)[io.off:io.end])
		io.off += int32(n)
	} else {
		op = "splice"
		n, errno = io.pipe.drain(d.dstFD())
		if errno == 0 && io.pipe.buffered > 0 {
			errno = syscall.EIO // the pipe held bytes yet gave none: never loop on that
		}
	}
	d.n += int64(n)
	switch errno {
	case 0:
	case syscall.EAGAIN:
		io.writable = false
		l.step(d, evBlocked, nil)
		return false
	default:
		l.step(d, evFail, os.NewSyscallError(op, errno))
		return false
	}
	if io.buf != nil {
		l.r.putBuf(io.buf)
		io.buf = nil
	} else if !io.bulk {
		l.dropPipe(d)
	}
	l.step(d, evFlushed, nil)
	return true
}

func (l *link) dropPipe(d *dir) {
	l.r.pipes().put(d.io.pipe)
	d.io.pipe = nil
}

// rawIO is one read(2) or write(2) on a non-blocking descriptor. It never waits, so
// it skips the scheduler's bookkeeping for system calls that may block.
func rawIO(trap uintptr, fd int, b []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), 0
}

// writeAll writes b until it is all gone or a call fails, and says how much went.
func writeAll(fd int, b []byte) (int, syscall.Errno) {
	w := 0
	for w < len(b) {
		n, errno := rawIO(syscall.SYS_WRITE, fd, b[w:])
		switch {
		case errno == syscall.EINTR:
		case errno != 0:
			return w, errno
		case n == 0: // a socket never takes nothing without saying why: never loop on it
			return w, syscall.EIO
		default:
			w += n
		}
	}
	return w, 0
}

// rawSplice is one non-blocking splice(2) of up to n bytes.
func rawSplice(in, out, n int) (int, syscall.Errno) {
	r, _, errno := syscall.RawSyscall6(syscall.SYS_SPLICE, uintptr(in), 0, uintptr(out), 0, uintptr(n), spliceFlags)
	if errno != 0 {
		return 0, errno
	}
	return int(r), 0
}

// drain splices what the pipe holds into fd until it is empty, fd takes no more
// (EAGAIN) or a call fails, and says how much went. A splice that moves nothing and
// says nothing ends it too, with bytes still held and no error: each caller names that.
func (pp *pipe) drain(fd int) (int, syscall.Errno) {
	moved := 0
	for pp.buffered > 0 {
		n, errno := rawSplice(pp.r, fd, pp.buffered)
		switch {
		case errno == syscall.EINTR:
		case errno != 0:
			return moved, errno
		case n == 0:
			return moved, 0
		default:
			pp.buffered -= n
			moved += n
		}
	}
	return moved, 0
}

func (r *Relay) getBuf() *[]byte { return getChunk(&r.bufs, smallRead) }

func (r *Relay) pipes() *pipePool {
	if r.pool != nil {
		return r.pool
	}
	return pipes
}
