//go:build linux

package relay

import (
	"net"
	"os"
	"sync"
	"syscall"
	"time"
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
	// timer fires at due for what timerKind says (timerRules). Made the first time a
	// pipe needs it: an idle session has none.
	timer      *time.Timer
	due        time.Time
	timerKind  timerKind
	stallMark  int64 // the up direction's byte count when the stall bound was set
	clientGone bool  // the poller saw the player's socket hang up or fail
	queued     bool  // on p.again
	closed     bool  // both directions ended, the descriptors are closed
}

// dirLoop is one parked direction between turns: where it stands (state, see
// dirRules), what the last edges said, and the bytes it holds for a destination that
// took no more.
type dirLoop struct {
	pipe *pipe   // a burst's bytes; nil between bursts
	buf  *[]byte // a packet's bytes the destination did not take; nil otherwise
	off  int32   // buf[off:end] waits
	end  int32
	// readable: the last edge said the source has bytes (or its end) and no read has
	// said EAGAIN since; writable: the same for the destination taking bytes.
	readable, writable bool
	bulk               bool // the last read filled the buffer: splice until the source is dry
	// stream: a splice of this burst moved at least smallRead bytes, so the next burst
	// starts with splice too (a download or an upload, not a packet).
	stream bool
	state  dirState
}

// start hands the pipe to a poller when both connections are TCP sockets, else runs
// each direction on a goroutine.
func (r *Relay) start(l *link, o Options) {
	c, cok := l.client.(*net.TCPConn)
	b, bok := l.backend.(*net.TCPConn)
	if !cok || !bok || o.NoPark || !r.park(l, c, b, o.Pending) {
		l.up.runBlocking(o.Pending.Up)
		l.down.runBlocking(o.Pending.Down)
	}
}

// park takes the two sockets over: a descriptor of the relay's own for each, in one of
// its pollers, and the connections closed, which takes their descriptors out of the
// runtime's poller (the socket stays open through the relay's). Each edge of either
// socket then wakes this poller alone, and an idle session is its link and two
// sockets. What an earlier relay held (pending) waits in each direction's buffer, so
// the first writable edge flushes it before the source is read. False (nothing
// changed) when any step fails.
func (r *Relay) park(l *link, c, b *net.TCPConn, pending Pending) bool {
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
	l.up.io.hold(pending.Up)
	l.down.io.hold(pending.Down)
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
			if events&(syscall.EPOLLRDHUP|hangup) != 0 {
				l.step(d, evSourceEnd, nil)
			}
		}
		if events&(syscall.EPOLLOUT|hangup) != 0 {
			l.to(sock).io.writable = true
		}
		if sock == sockClient && events&hangup != 0 && !lp.clientGone {
			lp.clientGone = true
			l.timerStep(tmClientGone)
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
	for chunks := 0; io.state != dirEnded; {
		if io.buf != nil || io.pipe != nil && io.pipe.buffered > 0 {
			if !io.writable || !l.flush(d) {
				return
			}
		}
		switch {
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
