//go:build linux

package relay

import (
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// smallRead is what one read takes into the poller's buffer. A game packet (tens of
// bytes to a few KiB) fits: it costs one read and one write. A read that fills the
// buffer means a burst (a world download), which goes on by splice through a pooled
// pipe, so bulk bytes never enter user space.
const smallRead = 16 << 10

// burstChunks bounds what one direction moves per turn of its poller: a chunk is a
// read, or a splice of up to pipeSize. Past it the pipe waits for the poller's next
// look at its epoll set, so a world download cannot hold up everyone else's packets.
const burstChunks = 16

// Sockets of a link, as watch ids name them.
const (
	sockClient  uint8 = 0
	sockBackend uint8 = 1
	sockNone    uint8 = 2 // no socket: the link's turn came again (poller.again)
)

// hangup is what epoll reports when the peer is gone: a reset or failure, or both
// directions shut. A FIN alone (EPOLLRDHUP) is not: a half-closed player may still
// read, and its last bytes must still reach a paused backend.
const hangup = syscall.EPOLLHUP | syscall.EPOLLERR

// linkLoop is a parked pipe's share of its poller: the relay's own descriptors of the
// two sockets and the one timer the pipe may need. Everything in it, and in both
// directions' dirLoop, is under mu: the poller serves the pipe under it, a timer or
// Abort ends it under it.
type linkLoop struct {
	p  *poller
	sh *shard
	mu sync.Mutex
	fd [2]int    // by socket (sockClient, sockBackend)
	id [2]uint64 // the sockets' ids in p
	// timer fires at due for what timerKind says: the backend accepting nothing for
	// the stall timeout, or the linger after one direction ended cleanly. Made the
	// first time a pipe needs it: an idle session has none.
	timer      *time.Timer
	due        time.Time
	timerKind  uint8
	stallMark  int64 // the up direction's byte count when the stall bound was set
	clientGone bool  // the poller saw the player's socket hang up or fail
	queued     bool  // on p.again
	closed     bool  // both directions ended, the descriptors are closed
}

const (
	timerNone uint8 = iota
	timerStall
	timerLinger
)

// dirLoop is one parked direction's state between turns: what the last edges said
// and the bytes it holds for a destination that took no more.
type dirLoop struct {
	pipe *pipe   // a burst's bytes; nil between bursts
	buf  *[]byte // a packet's bytes the destination did not take; nil otherwise
	off  int32   // buf[off:end] waits
	end  int32
	// readable: the last edge said the source has bytes (or its end) and no read has
	// said EAGAIN since; writable: the same for the destination taking bytes.
	readable, writable bool
	// drains: the source reported its FIN or a failure, so a short read no longer
	// means it is dry (the end is still to be read).
	drains bool
	eof    bool // the source ended; the direction ends once buf and pipe are flushed
	bulk   bool // the last read filled the buffer: splice until the source is dry
	// stream: a splice of this burst moved at least smallRead bytes, so the next burst
	// starts with splice too (a download or an upload, not a packet).
	stream  bool
	waiting bool // counted in Relay.waiting
	ended   bool
}

// start hands the pipe to a poller when both connections are TCP sockets, else runs
// each direction on a goroutine.
func (r *Relay) start(l *link, o Options) {
	c, cok := l.client.(*net.TCPConn)
	b, bok := l.backend.(*net.TCPConn)
	if !cok || !bok || o.NoPark || !r.park(l, c, b) {
		l.up.runBlocking()
		l.down.runBlocking()
	}
}

// park takes the two sockets over: a descriptor of the relay's own for each, in one of
// its pollers, and the connections closed, which takes their descriptors out of the
// runtime's poller (the socket stays open through the relay's). Each edge of either
// socket then wakes this poller alone, and an idle session is its link and two
// sockets. False (nothing changed) when any step fails.
func (r *Relay) park(l *link, c, b *net.TCPConn) bool {
	cfd, err := dupSocket(c)
	if err != nil {
		return false
	}
	bfd, err := dupSocket(b)
	if err != nil {
		_ = syscall.Close(cfd)
		return false
	}
	p, sh, err := r.polls.acquire()
	if err != nil {
		_ = syscall.Close(cfd)
		_ = syscall.Close(bfd)
		return false
	}
	lp := &l.lp
	lp.mu.Lock() // the poller may see the sockets' first edges before this is done
	lp.p, lp.sh, lp.fd = p, sh, [2]int{cfd, bfd}
	// A new socket takes bytes until a write says EAGAIN.
	l.up.io.writable, l.down.io.writable = true, true
	for s := range uint8(2) {
		lp.id[s] = p.watch(l, s)
		if p.add(lp.fd[s], lp.id[s]) == nil {
			continue
		}
		for k := range s + 1 {
			if k < s {
				p.del(lp.fd[k])
			}
			p.forget(lp.id[k])
		}
		_ = syscall.Close(cfd)
		_ = syscall.Close(bfd)
		// closed: an event the poller fetched before forget finds nothing to do.
		lp.closed, lp.p, lp.sh = true, nil, nil
		l.up.io, l.down.io = dirLoop{}, dirLoop{}
		lp.mu.Unlock()
		sh.release(p) // not under mu: the last release waits for the poller
		return false
	}
	r.parked.Add(2)
	lp.mu.Unlock()
	_ = c.Close()
	_ = b.Close()
	return true
}

// dupSocket returns a new descriptor (close-on-exec) of c's socket.
func dupSocket(c *net.TCPConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd, errno := -1, syscall.Errno(0)
	if err := raw.Control(func(fd uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		nfd, errno = int(r), e
	}); err != nil {
		return -1, err
	}
	if errno != 0 {
		return -1, os.NewSyscallError("fcntl", errno)
	}
	// The runtime made the socket non-blocking, and a duplicate shares that; said
	// again because every call of the poller relies on it.
	if err := syscall.SetNonblock(nfd, true); err != nil {
		_ = syscall.Close(nfd)
		return -1, err
	}
	return nfd, nil
}

// release gives back the link's poller reference once both directions are done.
func (l *link) release() {
	if l.lp.p != nil {
		l.lp.sh.release(l.lp.p)
	}
}

// src and dst are the direction's descriptors; from and to the direction that
// reads, and writes, socket sock.
func (d *dir) srcFD() int {
	if d.side == Client {
		return d.l.lp.fd[sockClient]
	}
	return d.l.lp.fd[sockBackend]
}

func (d *dir) dstFD() int {
	if d.side == Client {
		return d.l.lp.fd[sockBackend]
	}
	return d.l.lp.fd[sockClient]
}

func (l *link) from(sock uint8) *dir {
	if sock == sockClient {
		return &l.up
	}
	return &l.down
}

func (l *link) to(sock uint8) *dir {
	if sock == sockClient {
		return &l.down
	}
	return &l.up
}

// serve is the poller's turn for the link: events arrived for socket sock (sockNone:
// the link's turn came again). It records what they say and moves what can move.
func (l *link) serve(sock uint8, events uint32) {
	lp := &l.lp
	lp.mu.Lock()
	if lp.closed {
		lp.mu.Unlock()
		return
	}
	if sock == sockNone {
		lp.queued = false
	} else {
		if events&(syscall.EPOLLIN|syscall.EPOLLRDHUP|hangup) != 0 {
			d := l.from(sock)
			d.io.readable = true
			d.io.drains = d.io.drains || events&(syscall.EPOLLRDHUP|hangup) != 0
		}
		if events&(syscall.EPOLLOUT|hangup) != 0 {
			l.to(sock).io.writable = true
		}
		if sock == sockClient && events&hangup != 0 && !lp.clientGone {
			lp.clientGone = true
			if lp.timerKind == timerStall {
				l.setTimer(timerStall, l.stallWait())
			}
		}
	}
	l.pump(&l.up)
	l.pump(&l.down)
	l.unlock()
}

// pump moves d's bytes until its source is dry, its destination full, or its turn
// used (then the link waits for the poller's next round).
func (l *link) pump(d *dir) {
	io := &d.io
	for chunks := 0; !io.ended; {
		if io.buf != nil || io.pipe != nil && io.pipe.buffered > 0 {
			if !io.writable || !l.flush(d) {
				return
			}
		}
		switch {
		case io.eof:
			l.endDir(d, nil)
			return
		case !io.readable:
			return
		case chunks == burstChunks:
			l.lp.p.requeue(l)
			return
		}
		chunks++
		if io.bulk {
			l.spliceIn(d)
		} else {
			l.readSmall(d)
		}
	}
}

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
		l.endDir(d, os.NewSyscallError("read", errno))
		return
	case n == 0:
		io.eof = true
		return
	}
	w, errno := writeAll(d.dstFD(), buf[:n])
	d.n += int64(w)
	switch {
	case errno == syscall.EAGAIN:
		b := l.r.getBuf()
		io.buf, io.off, io.end = b, 0, int32(copy(*b, buf[w:n]))
		io.writable = false
		l.blocked(d)
		return
	case errno != 0:
		l.endDir(d, os.NewSyscallError("write", errno))
		return
	}
	switch {
	case n < len(buf) && !io.drains:
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
		l.endDir(d, os.NewSyscallError("splice", errno))
	case n == 0:
		io.eof = true
	default:
		io.pipe.buffered += n
		io.stream = io.stream || n >= smallRead
	}
}

// flush writes what d holds for its destination: true once all of it went.
func (l *link) flush(d *dir) bool {
	io := &d.io
	for {
		var n int
		var errno syscall.Errno
		var op string
		if io.buf != nil {
			if io.off == io.end {
				l.r.bufs.Put(io.buf)
				io.buf = nil
				break
			}
			n, errno = rawIO(syscall.SYS_WRITE, d.dstFD(), (*io.buf)[io.off:io.end])
			io.off += int32(max(n, 0))
			op = "write"
		} else {
			if io.pipe.buffered == 0 {
				if !io.bulk {
					l.dropPipe(d)
				}
				break
			}
			n, errno = rawSplice(io.pipe.r, d.dstFD(), io.pipe.buffered)
			if n > 0 {
				io.pipe.buffered -= n
			}
			op = "splice"
		}
		if n > 0 {
			d.n += int64(n)
			continue
		}
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			io.writable = false
			l.blocked(d)
			return false
		case 0:
			errno = syscall.EIO // the pipe held bytes yet gave none: never loop on that
		}
		l.endDir(d, os.NewSyscallError(op, errno))
		return false
	}
	if io.waiting {
		io.waiting = false
		l.r.waiting.Add(-1)
	}
	if d.side == Client && l.lp.timerKind == timerStall {
		l.lp.timerKind = timerNone
		l.lp.timer.Stop()
	}
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

func (r *Relay) getBuf() *[]byte {
	if b, ok := r.bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, smallRead)
	return &b
}

func (r *Relay) pipes() *pipePool {
	if r.pool != nil {
		return r.pool
	}
	return pipes
}
