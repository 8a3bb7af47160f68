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
// Flush, then Close.
type Handover struct {
	c    *conn
	proc *os.Process
	mu   sync.Mutex
	cond sync.Cond // pending changed, or err was set
	// pending are the sessions sent and not yet acknowledged, in order: the new process
	// answers each in turn.
	pending []func(error)
	err     error // the hand-over broke (or was closed): every Send fails with it
	read    sync.WaitGroup
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
	h.cond.L = &h.mu
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
	h.read.Go(h.acks)
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

// Send hands one session over and returns; done learns, in sending order, whether
// the new process adopted it (nil: only now may the caller close its descriptors) or
// not (the caller still has the session). Up to maxInFlight sessions are in flight, so
// both processes work at once; past that Send waits.
func (h *Handover) Send(s *Session, done func(error)) {
	h.mu.Lock()
	for h.err == nil && len(h.pending) >= maxInFlight {
		h.cond.Wait()
	}
	err := h.err
	if err == nil {
		h.pending = append(h.pending, done)
		h.cond.Broadcast() // acks waits for a session in flight
		if err = h.c.send(frameSession, AppendSession(nil, s), s.ClientFD, s.BackendFD); err != nil {
			h.pending = h.pending[:len(h.pending)-1]
			defer tell(h.failLocked(err), err)
		}
	}
	h.mu.Unlock()
	if err != nil {
		done(err)
	}
}

// maxInFlight bounds the sessions sent and not yet acknowledged: enough that both
// processes work at once, few enough that a session waits behind few others (it
// pauses from its detach here to its adoption there).
const maxInFlight = 64

// acks reads the new process's answers and tells each session's done, until the
// hand-over breaks or closes. An answer that takes longer than AckTimeout breaks it.
func (h *Handover) acks() {
	for {
		h.mu.Lock()
		for h.err == nil && len(h.pending) == 0 {
			h.cond.Wait()
		}
		broken := h.err != nil
		h.mu.Unlock()
		if broken {
			return
		}
		typ, p, fds, err := h.c.recv(AckTimeout)
		closeAll(fds)
		if err == nil {
			err = ackErr(typ, p)
		}
		h.mu.Lock()
		if h.err != nil { // closed meanwhile: Close told the sessions in flight
			h.mu.Unlock()
			return
		}
		done := h.pending[0]
		h.pending = h.pending[1:]
		var rest []func(error)
		if err != nil && !errors.Is(err, errRefused) {
			rest = h.failLocked(err)
		}
		h.cond.Broadcast()
		h.mu.Unlock()
		done(err)
		tell(rest, err)
	}
}

var errRefused = errors.New("new process refused the session")

// ackErr reads one answer: nil for adopted.
func ackErr(typ byte, p []byte) error {
	p, err := versioned("ack", p)
	if err != nil || typ != frameAck || len(p) == 0 {
		return fmt.Errorf("%w: bad acknowledgement", ErrMalformed)
	}
	if p[0] != 0 {
		return fmt.Errorf("%w: %s", errRefused, p[1:])
	}
	return nil
}

// failLocked breaks the hand-over with err: every later session stays with the
// caller, and so do those in flight, which it returns for tell (not under mu: their
// done may relay the session here again).
func (h *Handover) failLocked(err error) []func(error) {
	if h.err != nil {
		return nil
	}
	h.err = err
	pending := h.pending
	h.pending = nil
	h.cond.Broadcast()
	return pending
}

func tell(pending []func(error), err error) {
	for _, done := range pending {
		done(err)
	}
}

// Flush waits until every session sent so far has its answer, and returns why the
// hand-over broke, if it did.
func (h *Handover) Flush() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.err == nil && len(h.pending) > 0 {
		h.cond.Wait()
	}
	return h.err
}

// Pid is the new process's.
func (h *Handover) Pid() int { return h.proc.Pid }

// Process is the new process (tests reap it; a proxy exits and leaves it running).
func (h *Handover) Process() *os.Process { return h.proc }

// Close ends the hand-over: the new process stops waiting for sessions, and
// sessions still in flight stay with the caller.
func (h *Handover) Close() error {
	h.mu.Lock()
	pending := h.failLocked(net.ErrClosed)
	h.mu.Unlock()
	err := h.c.c.Close()
	h.read.Wait()
	_ = h.c.fail(nil) // descriptors the reader received and no frame claimed
	tell(pending, net.ErrClosed)
	return err
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
func dup(c syscall.Conn) (nfd int, err error) {
	raw, err := c.SyscallConn()
	if err == nil {
		err = raw.Control(func(fd uintptr) {
			syscall.ForkLock.RLock() // no exec in between may inherit it
			defer syscall.ForkLock.RUnlock()
			if nfd, err = syscall.Dup(int(fd)); err == nil {
				syscall.CloseOnExec(nfd)
			}
		})
	}
	if err != nil {
		return -1, fmt.Errorf("duplicate listener: %w", err)
	}
	return nfd, nil
}
