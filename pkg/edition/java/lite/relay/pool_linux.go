//go:build linux

package relay

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
)

// pipeSize is what the pool's big pipes ask the kernel for. One splice moves at most
// this much: a larger pipe means fewer system calls per megabyte, but its capacity
// counts against the user's pipe budget (fs.pipe-user-pages-soft, 64 MiB by default),
// past which the kernel makes every new pipe of the user tiny (8 KiB). A splice from a
// socket fills one pipe slot (a page at most) per piece of a received packet, so the
// slots, not the bytes, often end a splice: 1 MiB has 256 of them. Measured end to end
// with the event-loop relay (8 streams, performance.md), against mc-router in the same
// run: 256 KiB pipes cost 1.5x its CPU per GB, 1 MiB 0.8x. (fs.pipe-max-size, 1 MiB by
// default, is the most a user without CAP_SYS_RESOURCE may ask for.)
const pipeSize = 1 << 20

// maxIdlePipes bounds the big pipes: at most this many exist (16 MiB of budget), all
// kept for reuse when idle. A parked direction holds a pipe only while its poller
// serves it or while its destination takes no more, so a few serve many sessions.
// Directions busy beyond them get a pipe of the kernel's default size (64 KiB), closed
// when returned, so hundreds of busy directions still fit the budget before the kernel
// starts shrinking pipes.
const maxIdlePipes = 16

// maxPipes bounds every pipe the pool keeps open, big or not, at any open-files
// limit; pipesPerFD (one pipe, two descriptors, per 32 of the limit) bounds them at
// small limits. Past the bound a direction copies through a user-space buffer (see
// borrow), so pipes never take the descriptors a proxy keeps for accepting players.
const (
	maxPipes   = 512
	pipesPerFD = 32
)

// PipeFDs is the most descriptors the relay's pipes hold at once under an open-files
// limit of limit: what a proxy sets aside for them in its descriptor budget.
func PipeFDs(limit uint64) int { return 2 * pipeBound(limit) }

func pipeBound(limit uint64) int { return int(min(uint64(maxPipes), limit/pipesPerFD)) }

// errPipeBudget: the pool holds as many pipes as the open-files limit allows.
var errPipeBudget = errors.New("splice pipes at their share of the open-files limit")

// fdLimit is the process's soft open-files limit now (it may be raised after start);
// with no answer, a limit that leaves the pipes their full bound.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return maxPipes * pipesPerFD
	}
	return r.Cur
}

// pipe is one kernel pipe used as the splice buffer between two sockets.
type pipe struct {
	r, w int
	// buffered is how many bytes sit in the pipe (spliced in, not yet out).
	buffered int
	big      bool // sized pipeSize, one of the pool's reusable pipes
}

// pipePool lends pipes to relay directions while they move bytes. An idle session
// holds none: a direction takes a pipe only once its source is readable and gives it
// back as soon as the source runs dry. The pool is shared by every session in the
// process, as pipes are a process resource like file descriptors themselves.
type pipePool struct {
	mu   sync.Mutex
	idle []*pipe
	// open counts pipes created and not yet closed (lent out or idle); big counts
	// the big ones among them.
	open, big int
	// create makes a pipe; nil means newPipe. Tests inject failures here.
	create func(big bool) (*pipe, error)
	// limit reports the open-files limit the pool's bound follows; nil means fdLimit.
	limit func() uint64
	// bufs backs the rare no-pipe fallback (descriptor limit): *[]byte chunks.
	bufs sync.Pool
}

// fallbackChunk is the no-pipe fallback's buffer size, io.Copy's own.
const fallbackChunk = 32 << 10

func (p *pipePool) getBuf() *[]byte { return getChunk(&p.bufs, fallbackChunk) }

// getChunk takes a *[]byte of size bytes from bufs, or makes one.
func getChunk(bufs *sync.Pool, size int) *[]byte {
	if b, ok := bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, size)
	return &b
}

// pipes is the process-wide pool, the package's one global (see the package doc): the
// kernel's pipe budget is per user, so every relay in the process shares one pool
// sized to stay within it. Its pipes are closed only when returned beyond the idle
// bound; the idle ones live as long as the process, like the runtime's own pool.
var pipes = &pipePool{}

func pipeCounts() (open, idle int) { return pipes.counts() }

// get returns an empty pipe, reusing an idle one when there is one.
func (p *pipePool) get() (*pipe, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		pp := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return pp, nil
	}
	limit := p.limit
	if limit == nil {
		limit = fdLimit
	}
	if p.open >= pipeBound(limit()) {
		p.mu.Unlock()
		return nil, errPipeBudget
	}
	big := p.big < maxIdlePipes
	p.open++
	if big {
		p.big++
	}
	create := p.create
	p.mu.Unlock()
	if create == nil {
		create = newPipe
	}
	pp, err := create(big)
	if err != nil {
		p.mu.Lock()
		p.open--
		if big {
			p.big--
		}
		p.mu.Unlock()
		return nil, err
	}
	pp.big = big
	return pp, nil
}

// put gives a pipe back: a big one is kept for reuse, a default-sized one closed. A
// pipe that still holds bytes (its direction failed mid-way) is closed either way, so
// a later direction never sees stale data.
func (p *pipePool) put(pp *pipe) {
	if pp == nil {
		return
	}
	p.mu.Lock()
	if pp.big && pp.buffered == 0 {
		p.idle = append(p.idle, pp)
		p.mu.Unlock()
		return
	}
	p.open--
	if pp.big {
		p.big--
	}
	p.mu.Unlock()
	pp.close()
}

// counts reports pipes created and not closed, and how many of them are idle.
func (p *pipePool) counts() (open, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open, len(p.idle)
}

// newPipe makes a non-blocking pipe, pipeSize if big, else of the kernel's default size.
func newPipe(big bool) (*pipe, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return nil, fmt.Errorf("create splice pipe: %w", err)
	}
	if big {
		// A smaller pipe still works (the kernel refuses the size once the user's pipe
		// budget is spent), it only costs more system calls.
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fds[1]), syscall.F_SETPIPE_SZ, pipeSize)
	}
	return &pipe{r: fds[0], w: fds[1]}, nil
}

func (pp *pipe) close() {
	_ = syscall.Close(pp.r)
	_ = syscall.Close(pp.w)
}
