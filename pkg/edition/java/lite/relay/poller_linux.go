//go:build linux

package relay

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// loopEvents is what the poller watches on each socket of a parked pipe: readable,
// writable, the peer's FIN, and errors (EPOLLERR and EPOLLHUP are always reported).
// Edge-triggered, so a socket stays registered for the whole session without an
// epoll_ctl per burst: each direction remembers what the last edge said (readable,
// writable) until a call returns EAGAIN.
const loopEvents = syscall.EPOLLIN | syscall.EPOLLOUT | syscall.EPOLLRDHUP | (syscall.EPOLLET & 0xffffffff) // EPOLLET is negative in syscall

// batch is how many events one epoll_wait returns. A wake that returns fewer drained
// the set, so the poller can sleep without asking again.
const batch = 128

// poller serves the sockets of parked pipes with one epoll instance, on one goroutine:
// every ready socket's bytes are moved right there, with non-blocking system calls,
// as nginx's and HAProxy's event loops do. The epoll descriptor itself is non-blocking
// and registered with the runtime's poller, so the goroutine sleeps like any network
// read instead of holding a thread in epoll_wait; the sockets are not (the relay holds
// them through descriptors of its own), so their edges wake only this poller.
type poller struct {
	epfd   int
	file   *os.File // owns epfd; closing it ends run
	raw    syscall.RawConn
	exited chan struct{}

	mu sync.Mutex
	// watches holds the watched sockets by slot; an id is the slot plus a generation
	// (high 32 bits), so an event fetched for a socket whose pipe ended meanwhile
	// never reaches the next one in its slot. A slice rather than a map, as every idle
	// session pays for its two entries.
	watches []watch
	free    []uint32
	refs    int

	// What follows belongs to the poller's goroutine alone.
	events []syscall.EpollEvent
	// buf carries every small read of the pipes this poller serves: a packet is read
	// into it and written out at once, so no session holds a buffer of its own.
	buf []byte
	// again lists pipes that used their turn with bytes still to move; they go on after
	// the next look at the epoll set, so one busy pipe cannot hold up the others.
	again, spare []*link
	runErr       error
}

type watch struct {
	l    *link
	sock uint8 // which of the link's sockets: sockClient or sockBackend
	gen  uint32
}

// pollers is a relay's set of poller shards, one per GOMAXPROCS (read when the first
// pipe parks), so wake-ups spread over the cores the runtime may use. Each shard's
// poller is started by the first pipe that parks in it and stopped (its goroutine
// joined) when the last one is done with it.
type pollers struct {
	once   sync.Once
	shards []shard
	next   atomic.Uint32
}

type shard struct {
	mu sync.Mutex
	p  *poller
}

// init sizes the shards once; Stats may ask before any pipe parked.
func (ps *pollers) init() {
	ps.once.Do(func() { ps.shards = make([]shard, max(1, runtime.GOMAXPROCS(0))) })
}

func (ps *pollers) running() int {
	ps.init()
	n := 0
	for i := range ps.shards {
		sh := &ps.shards[i]
		sh.mu.Lock()
		if sh.p != nil {
			n++
		}
		sh.mu.Unlock()
	}
	return n
}

// acquire returns a running poller, the shards taken in turn, starting it if
// needed. Every successful call must be paired with release.
func (ps *pollers) acquire() (*poller, *shard, error) {
	ps.init()
	sh := &ps.shards[int(ps.next.Add(1))%len(ps.shards)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.p == nil {
		p, err := startPoller()
		if err != nil {
			return nil, nil, err
		}
		sh.p = p
	}
	sh.p.mu.Lock()
	sh.p.refs++
	sh.p.mu.Unlock()
	return sh.p, sh, nil
}

// release drops one reference; the last one stops the poller and waits for its
// goroutine, so no goroutine outlives the pipes that needed it.
func (sh *shard) release(p *poller) {
	sh.mu.Lock()
	p.mu.Lock()
	p.refs--
	last := p.refs == 0
	p.mu.Unlock()
	if last && sh.p == p {
		sh.p = nil
	}
	sh.mu.Unlock()
	if last {
		_ = p.file.Close()
		<-p.exited
	}
}

func startPoller() (*poller, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("create relay poller: %w", os.NewSyscallError("epoll_create1", err))
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		_ = syscall.Close(epfd)
		return nil, fmt.Errorf("create relay poller: %w", err)
	}
	file := os.NewFile(uintptr(epfd), "relay-epoll")
	raw, err := file.SyscallConn()
	if err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("create relay poller: %w", err)
	}
	p := &poller{epfd: epfd, file: file, raw: raw, exited: make(chan struct{}),
		events: make([]syscall.EpollEvent, batch), buf: make([]byte, smallRead)}
	go p.run()
	return p, nil
}

// run serves the watched sockets until the epoll file is closed. One RawRead holds
// the whole life of the poller: the runtime resets the descriptor's readiness at the
// start of each, so an edge that came while a batch was served would be lost between
// two; inside one, it makes the next wait return at once.
func (p *poller) run() {
	defer close(p.exited)
	_ = p.raw.Read(p.cycle)
}

// cycle serves what is ready: false lets the runtime park the goroutine until the
// epoll descriptor signals more, true ends run.
func (p *poller) cycle(fd uintptr) bool {
	for {
		n, errno := epollPoll(int(fd), p.events)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno != 0:
			p.runErr = os.NewSyscallError("epoll_pwait", errno)
			return true
		}
		for _, ev := range p.events[:n] {
			if l, sock := p.lookup(uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32); l != nil {
				l.serve(sock, ev.Events)
			}
		}
		if len(p.again) > 0 {
			again := p.again
			p.again, p.spare = p.spare, nil
			for i, l := range again {
				l.serve(sockNone, 0)
				again[i] = nil
			}
			p.spare = again[:0]
			continue
		}
		if n < len(p.events) { // the set is drained: sleep until its next edge
			return false
		}
	}
}

// requeue gives l another turn after the next look at the epoll set. Only the
// poller's goroutine calls it, under l's lock.
func (p *poller) requeue(l *link) {
	if !l.lp.queued {
		l.lp.queued = true
		p.again = append(p.again, l)
	}
}

func (p *poller) lookup(id uint64) (*link, uint8) {
	slot, gen := uint32(id), uint32(id>>32)
	p.mu.Lock()
	defer p.mu.Unlock()
	if int(slot) < len(p.watches) && p.watches[slot].gen == gen {
		w := &p.watches[slot]
		return w.l, w.sock
	}
	return nil, sockNone
}

// watch gives socket sock of l an id for its events.
func (p *poller) watch(l *link, sock uint8) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var slot uint32
	if n := len(p.free); n > 0 {
		slot, p.free = p.free[n-1], p.free[:n-1]
	} else {
		slot = uint32(len(p.watches))
		p.watches = append(p.watches, watch{})
	}
	w := &p.watches[slot]
	w.l, w.sock = l, sock
	return uint64(slot) | uint64(w.gen)<<32
}

func (p *poller) forget(id uint64) {
	slot := uint32(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := &p.watches[slot]; w.gen == uint32(id>>32) && w.l != nil {
		w.l, w.gen = nil, w.gen+1
		p.free = append(p.free, slot)
	}
}

// add registers fd with the epoll set, its events carrying id.
func (p *poller) add(fd int, id uint64) error {
	ev := syscall.EpollEvent{Events: uint32(loopEvents), Fd: int32(uint32(id)), Pad: int32(uint32(id >> 32))}
	if err := syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// del takes fd out of the epoll set.
func (p *poller) del(fd int) {
	_ = syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
}

// epollPoll is epoll_pwait without a timeout or a signal mask: what is ready now. It
// never waits, so it skips the scheduler's bookkeeping for system calls that may
// block, which would also keep the runtime's monitor thread waking every 20 µs to
// look at a P it thinks is in a system call.
func epollPoll(epfd int, events []syscall.EpollEvent) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), 0
}
