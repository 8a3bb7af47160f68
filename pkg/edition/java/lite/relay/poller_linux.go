//go:build linux

package relay

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// parkEvents is what a parked direction waits for: data, the peer's FIN, or an error
// (EPOLLERR and EPOLLHUP are always reported). Edge-triggered, so a socket stays
// registered across bursts without an epoll_ctl per burst; an edge that arrives while
// the direction is being served is remembered (parking.pending) rather than lost.
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

	mu      sync.Mutex
	nextID  uint64
	watches map[uint64]*parking
	refs    int
}

// pollers hands out a relay's poller: started by the first pipe that parks a
// direction, stopped (its goroutine joined) when the last one is done with it.
type pollers struct {
	mu sync.Mutex
	p  *poller
}

func (ps *pollers) running() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.p != nil {
		return 1
	}
	return 0
}

// acquire returns the running poller, starting one if needed. Every successful call
// must be paired with release.
func (ps *pollers) acquire() (*poller, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.p == nil {
		p, err := startPoller()
		if err != nil {
			return nil, err
		}
		ps.p = p
	}
	ps.p.mu.Lock()
	ps.p.refs++
	ps.p.mu.Unlock()
	return ps.p, nil
}

// release drops one reference; the last one stops the poller and waits for its
// goroutine, so no goroutine outlives the pipes that needed it.
func (ps *pollers) release(p *poller) {
	ps.mu.Lock()
	p.mu.Lock()
	p.refs--
	last := p.refs == 0
	p.mu.Unlock()
	if last && ps.p == p {
		ps.p = nil
	}
	ps.mu.Unlock()
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
	p := &poller{epfd: epfd, file: file, raw: raw, exited: make(chan struct{}), watches: map[uint64]*parking{}}
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
				w.wake(n == 1)
			}
		}
	}
}

func (p *poller) lookup(id uint64) *parking {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.watches[id]
}

// watch gives w an id for its events.
func (p *poller) watch(w *parking) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	p.watches[p.nextID] = w
	return p.nextID
}

func (p *poller) forget(id uint64) {
	p.mu.Lock()
	delete(p.watches, id)
	p.mu.Unlock()
}

// ctl adds or removes fd. It runs inside the connection's Control, so the
// descriptor cannot be closed (and its number reused) while epoll_ctl looks at it.
func (p *poller) ctl(op int, fd uintptr, id uint64) error {
	ev := syscall.EpollEvent{Events: uint32(parkEvents), Fd: int32(uint32(id)), Pad: int32(uint32(id >> 32))}
	if err := syscall.EpollCtl(p.epfd, op, int(fd), &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}
