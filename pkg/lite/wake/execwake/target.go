package execwake

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/wake"
)

// Defaults and bounds.
const (
	DefaultTimeout = 60 * time.Second
	// stderrTail and stdoutTail are how many trailing bytes of each stream
	// are kept.
	stderrTail = 4 << 10
	stdoutTail = 4 << 10
	// pipeGrace is how long a run waits for its output pipes to close after
	// the command exited: a child left in the background may hold them.
	pipeGrace = time.Second
)

// The environment a command gets besides PATH.
const (
	EnvAction        = "GATE_WAKE_ACTION"
	EnvServerAddress = "GATE_WAKE_SERVER_ADDRESS"
	EnvBackend       = "GATE_WAKE_BACKEND"
)

// defaultPath is a command's PATH when the proxy has none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// BackendPrefix starts the stdout line that names the backend.
const BackendPrefix = "backend="

// Options tune a Target beyond its spec; the zero value is ready.
type Options struct {
	// Env is the environment commands start from. Default: the proxy's
	// PATH alone (defaultPath when it has none), so that a command sees no
	// token or credential of the proxy's environment; a command that needs
	// more sets it itself (env VAR=... prog).
	Env []string
	// Dir is the commands' working directory. Default: the proxy's.
	Dir string
}

// Target runs one command pair. It is safe for concurrent use: every call is
// a process of its own.
type Target struct {
	key     string
	name    string // wake.Name(key): errors must not carry the arguments
	wake    []string
	sleep   []string
	timeout time.Duration
	opts    Options
}

var _ wake.Target = (*Target)(nil)

// Check reports what makes s no target of this engine, without running
// anything: the kind, a command, and programs that exist now, so that a typo
// fails at load rather than at the first join.
func Check(s wake.Spec) error {
	if s.Kind != wake.KindExec {
		return fmt.Errorf("exec wake target: spec of kind %q", s.Kind)
	}
	if len(s.Command) == 0 || s.Command[0] == "" {
		return errors.New("exec wake target: no command")
	}
	if err := s.Validate(); err != nil {
		return err
	}
	for _, argv := range [][]string{s.Command, s.SleepCommand} {
		if len(argv) == 0 {
			continue
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			return fmt.Errorf("%s: %w", wake.Name(s.Key()), err)
		}
	}
	return nil
}

// New returns the target of s (Kind exec; Command required; SleepCommand
// optional; Timeout bounds each run, default DefaultTimeout), once Check
// accepts it.
func New(s wake.Spec, o Options) (*Target, error) {
	if err := Check(s); err != nil {
		return nil, err
	}
	t := &Target{key: s.Key(), name: wake.Name(s.Key()), wake: s.Command, sleep: s.SleepCommand, timeout: s.Timeout, opts: o}
	if t.timeout == 0 {
		t.timeout = DefaultTimeout
	}
	if t.opts.Env == nil {
		t.opts.Env = []string{"PATH=" + cmp.Or(os.Getenv("PATH"), defaultPath)}
	}
	return t, nil
}

// Key implements wake.Target.
func (t *Target) Key() string { return t.key }

// Timeout bounds one run.
func (t *Target) Timeout() time.Duration { return t.timeout }

// Wake runs the wake command; its output may name the backend.
func (t *Target) Wake(ctx context.Context, req wake.Request) (wake.Result, error) {
	out, err := t.run(ctx, t.wake, "wake", req)
	if err != nil {
		return wake.Result{}, fmt.Errorf("%s: wake: %w", t.name, err)
	}
	backend, err := backendLine(out)
	if err != nil {
		return wake.Result{}, fmt.Errorf("%s: wake: exited 0, but %w", t.name, err)
	}
	return wake.Result{Backend: backend}, nil
}

// Sleep runs the sleep command, if there is one.
func (t *Target) Sleep(ctx context.Context, req wake.Request) error {
	if len(t.sleep) == 0 {
		return nil
	}
	if _, err := t.run(ctx, t.sleep, "sleep", req); err != nil {
		return fmt.Errorf("%s: sleep: %w", t.name, err)
	}
	return nil
}

// run runs argv to its end or the timeout and returns the tail of its stdout.
func (t *Target) run(ctx context.Context, argv []string, action string, req wake.Request) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = t.opts.Dir
	cmd.Env = append(append([]string(nil), t.opts.Env...),
		EnvAction+"="+action, EnvServerAddress+"="+hostChars(req.ServerAddress), EnvBackend+"="+req.Backend)
	stdout, stderr := &tail{max: stdoutTail}, &tail{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = pipeGrace
	ownGroup(cmd)
	err := cmd.Run()
	switch {
	case err == nil || (errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success()):
		// ErrWaitDelay with exit 0: a child kept the pipes; it is left alone.
		return stdout.bytes(), nil
	case ctx.Err() != nil && cmd.ProcessState != nil && !cmd.ProcessState.Exited():
		return nil, fmt.Errorf("%s killed with its process group (timeout %s)%s: %w", argv[0], t.timeout, stderr.excerpt(), ctx.Err())
	default:
		return nil, fmt.Errorf("%s: %w%s", argv[0], err, stderr.excerpt())
	}
}

// backendLine reads `backend=host:port` on the last non-empty line of out.
func backendLine(out []byte) (string, error) {
	lines := strings.Split(strings.TrimRight(string(out), "\r\n\t "), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	v, ok := strings.CutPrefix(last, BackendPrefix)
	if !ok {
		return "", nil
	}
	if err := wake.CheckBackend(v); err != nil {
		return "", fmt.Errorf("its output names backend %q: %w", v, err)
	}
	return v, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
	cut bool
}

func (w *tail) Write(p []byte) (int, error) {
	n := len(p)
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
		w.cut = true
	}
	return n, nil
}

func (w *tail) bytes() []byte { return w.buf }

// excerpt is the stderr tail for an error message, "" when it is empty.
func (w *tail) excerpt() string {
	s := string(bytes.TrimSpace(w.buf))
	if s == "" {
		return ""
	}
	if w.cut {
		s = "…" + s
	}
	return "; stderr: " + s
}

// maxHostChars bounds GATE_WAKE_SERVER_ADDRESS: a DNS name is at most 253.
const maxHostChars = 253

// hostChars keeps what a host name (or the route's host pattern) is made of: a player
// chooses the server address, and a newline, a quote or a `$` must not reach a
// command's environment, where a script could paste it into a shell line.
func hostChars(s string) string {
	out := make([]byte, 0, min(len(s), maxHostChars))
	for i := 0; i < len(s) && len(out) < maxHostChars; i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '-' || c == '_' || c == '*' || c == ':' {
			out = append(out, c)
		}
	}
	return string(out)
}
