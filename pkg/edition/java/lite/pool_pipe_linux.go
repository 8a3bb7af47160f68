//go:build linux

package lite

import (
	"fmt"
	"sync"
	"syscall"
)

// pipeSize is what each pooled pipe asks the kernel for. One splice moves at most this
// much; a larger pipe means fewer system calls per megabyte but more kernel memory per
// busy direction. 256 KiB measured as fast as 1 MiB on loopback (see performance.md)
// and keeps 64 busy pipes well under the default per-user pipe budget (64 MiB).
const pipeSize = 256 << 10

// maxIdlePipes bounds the pipes kept for reuse. Only directions that are moving bytes
// hold a pipe, so this is the expected number of simultaneously busy directions; more
// than that are created on demand and closed when returned.
const maxIdlePipes = 64

// pipe is one kernel pipe used as the splice buffer between two sockets.
type pipe struct {
	r, w int
	// buffered is how many bytes sit in the pipe (spliced in, not yet out).
	buffered int
}

// pipePool lends pipes to relay directions while they move bytes. An idle session
// holds none: a direction takes a pipe only once its source is readable and gives it
// back as soon as the source runs dry. The pool is shared by every session in the
// process, as pipes are a process resource like file descriptors themselves.
type pipePool struct {
	mu   sync.Mutex
	idle []*pipe
	// open counts pipes created and not yet closed (lent out or idle).
	open int
	// create makes a pipe; nil means newPipe. Tests inject failures here.
	create func() (*pipe, error)
}

// pipes is the process-wide pool. Its pipes are closed only when returned beyond the
// idle bound; the idle ones live as long as the process, like the runtime's own pool.
var pipes = &pipePool{}

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
	p.open++
	create := p.create
	p.mu.Unlock()
	if create == nil {
		create = newPipe
	}
	pp, err := create()
	if err != nil {
		p.mu.Lock()
		p.open--
		p.mu.Unlock()
		return nil, err
	}
	return pp, nil
}

// put gives a pipe back. A pipe that still holds bytes (its direction failed mid-way)
// is closed rather than reused, so a later direction never sees stale data.
func (p *pipePool) put(pp *pipe) {
	if pp == nil {
		return
	}
	p.mu.Lock()
	if pp.buffered == 0 && len(p.idle) < maxIdlePipes {
		p.idle = append(p.idle, pp)
		p.mu.Unlock()
		return
	}
	p.open--
	p.mu.Unlock()
	pp.close()
}

// counts reports pipes created and not closed, and how many of them are idle.
func (p *pipePool) counts() (open, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open, len(p.idle)
}

func newPipe() (*pipe, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return nil, fmt.Errorf("create splice pipe: %w", err)
	}
	// A smaller pipe still works (the kernel may refuse the size when the user's pipe
	// budget is spent), it only costs more system calls.
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fds[1]), syscall.F_SETPIPE_SZ, pipeSize)
	return &pipe{r: fds[0], w: fds[1]}, nil
}

func (pp *pipe) close() {
	_ = syscall.Close(pp.r)
	_ = syscall.Close(pp.w)
}
