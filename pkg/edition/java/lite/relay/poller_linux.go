//go:build linux

package relay

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// parkEvents is what a parked direction waits for: data, the peer's FIN, or an error
// (EPOLLERR and EPOLLHUP are always reported). Edge-triggered, so a socket stays
// registered across bursts without an epoll_ctl per burst; an edge that arrives while
// the direction is being served is remembered (servingPending) rather than lost.
const parkEvents = syscall.EPOLLIN | syscall.EPOLLRDHUP | (syscall.EPOLLET & 0xffffffff) // EPOLLET is negative in syscall

// poller watches the sockets of parked directions with one epoll instance and serves
// each that becomes readable: itself when it is the only one (a packet costs no
// goroutine switch), else with a worker goroutine each. The epoll descriptor itself
// is non-blocking and registered with the runtime's poller, so the poller's goroutine
// sleeps like any network read instead of holding a thread in epoll_wait.
type poller struct {
	epfd   int
	file   *os.File // owns epfd; closing it ends run
	raw    syscall.RawConn
	exited chan struct{}

	mu sync.Mutex
	// watches holds the watched directions by slot; an id is the slot plus a
	// generation (high 32 bits), so an event fetched for a direction that ended
	// meanwhile never reaches the next one in its slot. A slice rather than a map, as
	// every idle session pays for its two entries.
	watches []watch
	free    []uint32
	refs    int

	// ctlMu serialises control, whose callback (ctlFn, bound once per poller) takes
	// its arguments from the fields below: a callback per direction would be an
	// allocation that every idle session keeps. The kernel serialises epoll_ctl calls
	// on one epoll instance anyway.
	ctlMu  sync.Mutex
	ctlOp  int
	ctlID  uint64
	ctlErr error
	ctlFn  func(fd uintptr)
}

type watch struct {
	pk  *parking
	gen uint32
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
	p := &poller{epfd: epfd, file: file, raw: raw, exited: make(chan struct{})}
	p.ctlFn = p.ctl
	go p.run()
	return p, nil
}

// run waits for parked sockets to become readable and wakes their directions. It ends
// when the epoll file is closed.
func (p *poller) run() {
	defer close(p.exited)
	events := make([]syscall.EpollEvent, 64)
	var n int
	var werr error
	// wait drains what is ready without blocking; false lets the runtime park this
	// goroutine until the epoll descriptor signals more.
	wait := func(fd uintptr) bool {
		for {
			n, werr = syscall.EpollWait(int(fd), events, 0)
			if werr != syscall.EINTR {
				return n > 0 || werr != nil
			}
		}
	}
	for {
		if err := p.raw.Read(wait); err != nil || werr != nil {
			return
		}
		for _, ev := range events[:n] {
			if w := p.lookup(uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32); w != nil {
				w.wake(ev.Events, n == 1)
			}
		}
	}
}

func (p *poller) lookup(id uint64) *parking {
	slot, gen := uint32(id), uint32(id>>32)
	p.mu.Lock()
	defer p.mu.Unlock()
	if int(slot) < len(p.watches) && p.watches[slot].gen == gen {
		return p.watches[slot].pk
	}
	return nil
}

// watch gives pk an id for its events.
func (p *poller) watch(pk *parking) uint64 {
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
	w.pk = pk
	return uint64(slot) | uint64(w.gen)<<32
}

func (p *poller) forget(id uint64) {
	slot := uint32(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := &p.watches[slot]; w.gen == uint32(id>>32) {
		w.pk, w.gen = nil, w.gen+1
		p.free = append(p.free, slot)
	}
}

// control adds (EPOLL_CTL_ADD) or removes (EPOLL_CTL_DEL) the socket behind raw,
// events for it carrying id. It runs epoll_ctl inside the socket's Control, so the
// descriptor cannot be closed (and its number reused) meanwhile; a closed socket is an
// error.
func (p *poller) control(raw syscall.RawConn, op int, id uint64) error {
	p.ctlMu.Lock()
	defer p.ctlMu.Unlock()
	p.ctlOp, p.ctlID, p.ctlErr = op, id, nil
	if err := raw.Control(p.ctlFn); err != nil {
		return err
	}
	return p.ctlErr
}

// ctl is control's callback, under ctlMu.
func (p *poller) ctl(fd uintptr) {
	ev := syscall.EpollEvent{Events: uint32(parkEvents), Fd: int32(uint32(p.ctlID)), Pad: int32(uint32(p.ctlID >> 32))}
	if err := syscall.EpollCtl(p.epfd, p.ctlOp, int(fd), &ev); err != nil {
		p.ctlErr = os.NewSyscallError("epoll_ctl", err)
	}
}
