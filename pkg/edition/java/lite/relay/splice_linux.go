//go:build linux

package relay

import (
	"io"
	"net"
	"os"
	"syscall"
)

// spliceFlags: SPLICE_F_MOVE (a hint to move pages rather than copy them) and
// SPLICE_F_NONBLOCK (the pipe side never blocks; the sockets are non-blocking already,
// so every splice returns EAGAIN instead of sleeping in the kernel).
const spliceFlags = 0x1 | 0x2

// half copies src to dst until src ends. Between two TCP sockets it splices
// through a pooled pipe (see splicer); any other pair (tests, wrapped conns) falls back
// to io.Copy.
func half(dst, src net.Conn) (int64, error) {
	d, dok := dst.(*net.TCPConn)
	s, sok := src.(*net.TCPConn)
	if !dok || !sok {
		return io.Copy(dst, src)
	}
	sp, err := newSplicer(d, s, pipes)
	if err != nil {
		return io.Copy(dst, src)
	}
	return sp.run()
}

// splicer moves one direction's bytes with splice(2), socket to pipe to socket, on a
// goroutine of its own (a pipe that does not park). Unlike io.Copy (whose splice takes
// a pipe before it waits for data and keeps it while the connection idles, four extra
// descriptors per session), it waits for readability through the runtime poller first
// and borrows a pipe only for as long as bytes keep coming.
type splicer struct {
	dst     *net.TCPConn
	pool    *pipePool
	srcRaw  syscall.RawConn
	dstRaw  syscall.RawConn
	pipe    *pipe
	buf     *[]byte // fallback chunk when no pipe can be had (descriptor limit)
	n       int     // bytes moved into the pipe (or buf) by the last fill
	err     error   // the last system call's error
	written int64
	// ioFn is sp.io, bound once so the per-chunk loop allocates nothing: one callback
	// for both sockets (flushing says which job it does).
	ioFn     func(fd uintptr) bool
	flushing bool // ioFn flushes the pipe into dst; else it fills it from src
}

func newSplicer(dst, src *net.TCPConn, pool *pipePool) (*splicer, error) {
	srcRaw, err := src.SyscallConn()
	if err != nil {
		return nil, err
	}
	dstRaw, err := dst.SyscallConn()
	if err != nil {
		return nil, err
	}
	sp := &splicer{dst: dst, pool: pool, srcRaw: srcRaw, dstRaw: dstRaw}
	sp.ioFn = sp.io
	return sp, nil
}

// run moves bytes until src reaches EOF or something fails, waiting for data in the
// runtime poller between chunks: fill (splice src into the pipe) then flush (splice
// the pipe into dst, waiting for dst to accept it).
func (sp *splicer) run() (int64, error) {
	defer sp.release()
	for {
		sp.n, sp.err = 0, nil
		sp.flushing = false
		if err := sp.srcRaw.Read(sp.ioFn); err != nil {
			return sp.written, err
		}
		switch {
		case sp.err != nil:
			return sp.written, os.NewSyscallError("splice", sp.err)
		case sp.n == 0:
			return sp.written, nil
		case sp.buf != nil:
			n, err := sp.dst.Write((*sp.buf)[:sp.n])
			sp.written += int64(n)
			if err != nil {
				return sp.written, err
			}
			continue
		}
		sp.flushing = true
		if err := sp.dstRaw.Write(sp.ioFn); err != nil {
			return sp.written, err
		}
		if sp.err != nil {
			return sp.written, os.NewSyscallError("splice", sp.err)
		}
	}
}

// io is the callback both loops run (see ioFn).
func (sp *splicer) io(fd uintptr) bool {
	if sp.flushing {
		return sp.flush(fd)
	}
	return sp.fill(fd)
}

// fill runs inside the runtime poller's read loop: returning false parks the goroutine
// until the socket is readable again. The pipe is borrowed here and given back on
// EAGAIN, so a direction waiting for data holds no pipe.
func (sp *splicer) fill(fd uintptr) bool {
	if sp.pipe == nil && !sp.borrow() {
		return sp.readBuf(fd)
	}
	for {
		n, err := syscall.Splice(int(fd), nil, sp.pipe.w, nil, pipeSize, spliceFlags)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			sp.pool.put(sp.pipe)
			sp.pipe = nil
			return false
		}
		if n > 0 {
			sp.pipe.buffered += int(n)
		}
		sp.n, sp.err = int(n), err
		return true
	}
}

// flush runs inside the runtime poller's write loop: false waits for dst to be writable.
func (sp *splicer) flush(fd uintptr) bool {
	n, errno := sp.pipe.drain(int(fd))
	sp.written += int64(n)
	switch {
	case errno == syscall.EAGAIN:
		return false
	case errno != 0:
		sp.err = errno
	case sp.pipe.buffered > 0:
		sp.err = io.ErrNoProgress // the pipe said it had bytes but gave none: never loop on that
	}
	return true
}

// borrow takes a pipe from the pool; when none can be created (descriptor limit), the
// direction copies this chunk through a user-space buffer instead of failing.
func (sp *splicer) borrow() bool {
	p, err := sp.pool.get()
	if err != nil {
		if sp.buf == nil {
			sp.buf = sp.pool.getBuf()
		}
		return false
	}
	if sp.buf != nil {
		sp.pool.bufs.Put(sp.buf)
		sp.buf = nil
	}
	sp.pipe = p
	return true
}

// readBuf is fill's fallback: one read(2) into the chunk buffer.
func (sp *splicer) readBuf(fd uintptr) bool {
	for {
		n, err := syscall.Read(int(fd), *sp.buf)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		sp.n, sp.err = max(n, 0), err
		return true
	}
}

// release returns what the direction borrowed. A pipe still holding bytes is closed by
// the pool, never reused.
func (sp *splicer) release() {
	sp.pool.put(sp.pipe)
	sp.pipe = nil
	if sp.buf != nil {
		sp.pool.bufs.Put(sp.buf)
		sp.buf = nil
	}
}
