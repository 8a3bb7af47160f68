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
	var sp splicer
	if err := sp.init(d, s, nil, nil, pipes); err != nil {
		return io.Copy(dst, src)
	}
	return sp.run()
}

// splicer moves one direction's bytes with splice(2), socket to pipe to socket, so the
// payload never enters user space. Unlike io.Copy (whose splice takes a pipe before it
// waits for data and keeps it while the connection idles, four extra descriptors per
// session), it waits for readability through the runtime poller first and borrows a pipe
// only for as long as bytes keep coming.
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
	// stall, when set, bounds a flush that has to wait for dst (see StallTimeout).
	stall staller
	// ioFn is sp.io, bound once so the per-chunk loop allocates nothing: one callback
	// for both sockets (flushing says which job it does), as each bound method value
	// is an allocation that every idle session keeps.
	ioFn func(fd uintptr) bool

	flushing bool // ioFn flushes the pipe into dst; else it fills it from src
	ready    bool // the last fill found data (or EOF, or an error)
	flushed  bool // the last flush emptied the pipe (or failed)
	// noWait makes fill and flush return at EAGAIN instead of waiting for the poller.
	noWait bool
	// now marks a step that must not block at all (it runs on the relay poller's
	// goroutine): no fallback read into a buffer, whose write could block.
	now     bool
	handoff bool // a step under now found work it cannot do without blocking
	// stalled: the stall deadline fired (see armed).
	stalled bool
	// armed: whether stall set a deadline for the chunk in flight, and whether dst
	// took bytes since (then the next EAGAIN sets it afresh). A byte, not two bools:
	// the link's size class has no room for another field.
	armed armState
}

// init readies sp to move src to dst. srcRaw and dstRaw, when not nil, are the
// sockets' raw conns (a pipe's two directions share them).
func (sp *splicer) init(dst, src *net.TCPConn, srcRaw, dstRaw syscall.RawConn, pool *pipePool) error {
	var err error
	if srcRaw == nil {
		if srcRaw, err = src.SyscallConn(); err != nil {
			return err
		}
	}
	if dstRaw == nil {
		if dstRaw, err = dst.SyscallConn(); err != nil {
			return err
		}
	}
	sp.dst, sp.pool, sp.srcRaw, sp.dstRaw = dst, pool, srcRaw, dstRaw
	sp.ioFn = sp.io
	return nil
}

func newSplicer(dst, src *net.TCPConn, pool *pipePool) (*splicer, error) {
	sp := &splicer{}
	if err := sp.init(dst, src, nil, nil, pool); err != nil {
		return nil, err
	}
	return sp, nil
}

// armState is whether a flush waits under the stall deadline.
type armState uint8

const (
	unarmed  armState = iota
	armedNow          // set at the last EAGAIN
	armedOld          // set before dst took more bytes: the next EAGAIN sets it again
)

// staller bounds how long a flush may wait for its destination.
type staller interface {
	armStall() bool
	disarmStall()
}

// stepResult is what one step of a splicer did.
type stepResult uint8

const (
	stepMoved   stepResult = iota // a chunk went from src to dst
	stepIdle                      // src had nothing (only when not waiting)
	stepEOF                       // src ended cleanly
	stepFailed                    // an error (returned alongside)
	stepBlocked                   // stepNow: dst is full or no pipe; a blocking step goes on
)

// run moves bytes until src reaches EOF or something fails, waiting for data in the
// runtime poller between chunks.
func (sp *splicer) run() (int64, error) {
	defer sp.release()
	for {
		switch r, err := sp.step(true); r {
		case stepEOF:
			return sp.written, nil
		case stepFailed:
			return sp.written, err
		}
	}
}

// step moves one chunk: fill (splice src into the pipe) then flush (splice the pipe
// into dst, waiting for dst to accept it). With wait, fill parks the goroutine until
// src is readable; without, it returns stepIdle at once when src has nothing.
func (sp *splicer) step(wait bool) (stepResult, error) {
	if sp.pipe != nil && sp.pipe.buffered > 0 {
		return sp.flushWaiting() // left by a stepNow that dst could not take
	}
	sp.n, sp.err, sp.ready = 0, nil, false
	sp.noWait = !wait
	err := sp.readSrc()
	sp.noWait = false
	if err == nil && !sp.ready {
		return stepIdle, nil
	}
	switch {
	case err != nil:
		return stepFailed, err
	case sp.err != nil:
		return stepFailed, os.NewSyscallError("splice", sp.err)
	case sp.n == 0:
		return stepEOF, nil
	case sp.buf != nil:
		if err := sp.writeBuf(); err != nil {
			return stepFailed, err
		}
		return stepMoved, nil
	}
	return sp.flushWaiting()
}

// flushWaiting empties the pipe into dst, waiting for dst to be writable.
func (sp *splicer) flushWaiting() (stepResult, error) {
	err := sp.writeDst()
	if sp.armed != unarmed {
		sp.armed, sp.stalled = unarmed, err != nil
		sp.stall.disarmStall()
	}
	if err != nil {
		return stepFailed, err
	}
	if sp.err != nil {
		return stepFailed, os.NewSyscallError("splice", sp.err)
	}
	return stepMoved, nil
}

// stepNow is step without any waiting, for the relay poller's own goroutine: when
// the chunk cannot go all the way without blocking (dst full, no pipe to be had), it
// leaves what it moved in the pipe and reports stepBlocked for a blocking step to
// finish.
func (sp *splicer) stepNow() (stepResult, error) {
	sp.n, sp.err, sp.ready, sp.flushed, sp.handoff = 0, nil, false, false, false
	sp.now, sp.noWait = true, true
	defer func() { sp.now, sp.noWait = false, false }()
	err := sp.readSrc()
	switch {
	case err != nil:
		return stepFailed, err
	case sp.handoff:
		return stepBlocked, nil
	case !sp.ready:
		return stepIdle, nil
	case sp.err != nil:
		return stepFailed, os.NewSyscallError("splice", sp.err)
	case sp.n == 0:
		return stepEOF, nil
	}
	if err := sp.writeDst(); err != nil {
		return stepFailed, err
	}
	switch {
	case sp.err != nil:
		return stepFailed, os.NewSyscallError("splice", sp.err)
	case !sp.flushed:
		return stepBlocked, nil
	}
	return stepMoved, nil
}

// readSrc runs fill in src's read loop: it returns once fill returned true.
func (sp *splicer) readSrc() error {
	sp.flushing = false
	return sp.srcRaw.Read(sp.ioFn)
}

// writeDst runs flush in dst's write loop: it returns once flush returned true.
func (sp *splicer) writeDst() error {
	sp.flushing = true
	return sp.dstRaw.Write(sp.ioFn)
}

// io is the callback both loops run (see ioFn).
func (sp *splicer) io(fd uintptr) bool {
	if sp.flushing {
		return sp.flush(fd)
	}
	return sp.fill(fd)
}

// fill runs inside the runtime poller's read loop: returning false parks the goroutine
// until the socket is readable again (never under noWait: ready then tells). The pipe
// is borrowed here and given back on EAGAIN, so a direction waiting for data holds no
// pipe.
func (sp *splicer) fill(fd uintptr) bool {
	if sp.pipe == nil && !sp.borrow() {
		if sp.now {
			sp.handoff = true // the buffer's write may block: not here
			return true
		}
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
			return sp.noWait
		}
		if n > 0 {
			sp.pipe.buffered += int(n)
		}
		sp.n, sp.err, sp.ready = int(n), err, true
		return true
	}
}

// flush runs inside the runtime poller's write loop: false waits for dst to be writable.
func (sp *splicer) flush(fd uintptr) bool {
	for sp.pipe.buffered > 0 {
		n, err := syscall.Splice(sp.pipe.r, nil, int(fd), nil, sp.pipe.buffered, spliceFlags)
		if n > 0 {
			sp.pipe.buffered -= int(n)
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
			if sp.stall != nil && sp.armed != armedNow {
				sp.armed = unarmed
				if sp.stall.armStall() {
					sp.armed = armedNow
				}
			}
			return sp.noWait
		case nil:
			// The pipe said it had bytes but gave none: never loop on that.
			err = io.ErrNoProgress
		}
		sp.err, sp.flushed = err, true
		return true
	}
	sp.flushed = true
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
			return sp.noWait
		}
		sp.n, sp.err, sp.ready = max(n, 0), err, true
		return true
	}
}

func (sp *splicer) writeBuf() error {
	n, err := sp.dst.Write((*sp.buf)[:sp.n])
	sp.written += int64(n)
	return err
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
