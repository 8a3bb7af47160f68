//go:build linux

package handover

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// EnvFD names the environment variable through which a new process learns the
// descriptor of its hand-over socket.
const EnvFD = "LITE_HANDOVER_FD"

// ReadyTimeout is how long Start waits for the new process to be ready when
// Offer.ReadyTimeout is 0.
const ReadyTimeout = 10 * time.Second

// AckTimeout bounds the wait for the new process to take one session.
const AckTimeout = 5 * time.Second

// ErrNotReady: the new process exited, failed or stayed silent before it was ready.
// It was killed, and nothing was handed over.
var ErrNotReady = errors.New("new process did not become ready")

// Listener is a listening socket to hand over, by the name the new process asks for.
type Listener struct {
	Name string
	// Socket is the listener (a *net.TCPListener): the caller keeps it. Its descriptor
	// is duplicated, never taken through os.File.Fd, which would make the socket
	// blocking for both processes (and an Accept uninterruptible by Close).
	Socket syscall.Conn
}

// Offer is what Start starts and hands over.
type Offer struct {
	// Path, Args (without the program name) and Env start the new process; Env gets
	// EnvFD added. Its standard streams are the caller's.
	Path string
	Args []string
	Env  []string
	// Listeners are sent first, before the new process is asked to be ready.
	Listeners []Listener
	// ReadyTimeout bounds the wait for readiness; 0 is ReadyTimeout.
	ReadyTimeout time.Duration
}

// Handover is the old process's side once the new one is ready: Send each session,
// then Close.
type Handover struct {
	mu   sync.Mutex // one session in flight: each waits for its own answer
	c    *conn
	proc *os.Process
}

// Start starts the new process, hands it the listeners and waits until it is
// ready. On any failure the new process is killed and reaped, and the error (which
// wraps ErrNotReady once it ran) says why.
func Start(o Offer) (*Handover, error) {
	mine, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	env := append(append([]string(nil), o.Env...), EnvFD+"=3")
	proc, err := os.StartProcess(o.Path, append([]string{o.Path}, o.Args...), &os.ProcAttr{
		Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr, theirs}})
	_ = theirs.Close() // the child has it; its exit now ends our reads
	if err != nil {
		_ = mine.close()
		return nil, fmt.Errorf("start %s: %w", o.Path, err)
	}
	h := &Handover{c: mine, proc: proc}
	wait := cmp.Or(o.ReadyTimeout, ReadyTimeout)
	if err := h.hello(o.Listeners, wait); err != nil {
		_ = mine.close()
		_ = proc.Kill()
		why := "killed"
		if state, _ := proc.Wait(); state != nil && state.Exited() {
			why = "it exited: " + state.String()
		}
		return nil, fmt.Errorf("%w within %v (%s): %w", ErrNotReady, wait, why, err)
	}
	return h, nil
}

// hello sends the listeners and waits up to wait for the ready frame.
func (h *Handover) hello(ls []Listener, wait time.Duration) error {
	p := []byte{Version, byte(len(ls))}
	var fds []int
	defer func() { closeAll(fds) }()
	for _, l := range ls {
		p = appendBytes(p, []byte(l.Name))
		fd, err := dup(l.Socket)
		if err != nil {
			return fmt.Errorf("listener %s: %w", l.Name, err)
		}
		fds = append(fds, fd)
	}
	if err := h.c.send(frameHello, p, fds...); err != nil {
		return err
	}
	typ, p, got, err := h.c.recv(wait)
	closeAll(got)
	if err == nil && typ != frameReady {
		err = fmt.Errorf("%w: frame %d instead of ready", ErrMalformed, typ)
	}
	if err == nil {
		_, err = versioned("ready", p)
	}
	return err
}

// Send hands one session over and returns once the new process has adopted it; only
// then may the caller close its own descriptors. On an error the new process did not
// take it (or is gone): the caller still has the session.
func (h *Handover) Send(s *Session) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.c.send(frameSession, AppendSession(nil, s), s.ClientFD, s.BackendFD); err != nil {
		return err
	}
	typ, p, fds, err := h.c.recv(AckTimeout)
	closeAll(fds)
	if err != nil {
		return err
	}
	if p, err = versioned("ack", p); err != nil || typ != frameAck || len(p) == 0 {
		return fmt.Errorf("%w: bad acknowledgement", ErrMalformed)
	}
	if p[0] != 0 {
		return fmt.Errorf("new process refused the session: %s", p[1:])
	}
	return nil
}

// Pid is the new process's.
func (h *Handover) Pid() int { return h.proc.Pid }

// Process is the new process (tests reap it; a proxy exits and leaves it running).
func (h *Handover) Process() *os.Process { return h.proc }

// Close ends the hand-over: the new process stops waiting for sessions.
func (h *Handover) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.c.close()
}

// socketPair makes the hand-over socket: our end as a conn, theirs as a file to
// inherit.
func socketPair() (*conn, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("handover socket: %w", os.NewSyscallError("socketpair", err))
	}
	mine, err := unixConn(fds[0], "handover")
	if err != nil {
		_ = syscall.Close(fds[1])
		return nil, nil, err
	}
	return mine, os.NewFile(uintptr(fds[1]), "handover-child"), nil
}

// unixConn wraps descriptor fd (which it takes) as a conn.
func unixConn(fd int, name string) (*conn, error) {
	f := os.NewFile(uintptr(fd), name)
	c, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("handover socket: %w", err)
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		_ = c.Close()
		return nil, fmt.Errorf("handover socket: descriptor %d is not a Unix socket", fd)
	}
	return newConn(uc), nil
}

// fdFromEnv is the descriptor EnvFD names, and whether it names one.
func fdFromEnv() (int, bool, error) {
	v, ok := os.LookupEnv(EnvFD)
	if !ok {
		return 0, false, nil
	}
	_ = os.Unsetenv(EnvFD) // a later upgrade of this process passes its own
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return 0, false, fmt.Errorf("%s=%q: want a descriptor number from 3", EnvFD, v)
	}
	return fd, true, nil
}

// dup returns a duplicate (close-on-exec) of c's descriptor, its flags untouched.
func dup(c syscall.Conn) (int, error) {
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
	return nfd, nil
}
