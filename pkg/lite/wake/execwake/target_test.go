package execwake

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// script writes an sh script into the test's directory and returns its path.
func script(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func newTarget(t *testing.T, s wake.Spec) *Target {
	t.Helper()
	s.Kind = wake.KindExec
	tg, err := New(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestWakeGetsTheEnvironmentAndArgvWithoutAShell(t *testing.T) {
	out := filepath.Join(t.TempDir(), "seen")
	wakeCmd := script(t, "wake.sh", `printf '%s|%s|%s|%s|%s\n' "$GATE_WAKE_ACTION" "$GATE_WAKE_SERVER_ADDRESS" "$GATE_WAKE_BACKEND" "$1" "$2" > "$OUT"`+"\n")
	tg, err := New(wake.Spec{Kind: wake.KindExec, Command: []string{wakeCmd, "a b", "$HOME;x"}}, Options{Env: []string{"OUT=" + out}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tg.Wake(context.Background(), wake.Request{ServerAddress: "lobby.example.com", Backend: "10.9.0.30:25565"})
	if err != nil || res.Backend != "" {
		t.Fatalf("wake: %+v %v", res, err)
	}
	b, _ := os.ReadFile(out)
	if got, want := string(b), "wake|lobby.example.com|10.9.0.30:25565|a b|$HOME;x\n"; got != want {
		t.Errorf("the command saw %q, want %q", got, want)
	}
	if tg.Timeout() != DefaultTimeout || tg.Key() != "exec "+wakeCmd+" a b $HOME;x" {
		t.Errorf("timeout %s key %q", tg.Timeout(), tg.Key())
	}
}

func TestBackendFromTheLastOutputLine(t *testing.T) {
	for _, tt := range []struct {
		name, out, backend, err string
	}{
		{name: "named", out: "starting\nbackend=10.9.0.31:25565\n\n", backend: "10.9.0.31:25565"},
		{name: "IPv6", out: "backend=[::1]:25566", backend: "[::1]:25566"},
		{name: "not the last line", out: "backend=10.9.0.31:25565\ndone\n"},
		{name: "no output", out: ""},
		{name: "bare address is not a backend line", out: "10.9.0.31:25565\n"},
		{name: "bad address", out: "backend=10.9.0.31\n", err: "names backend"},
		{name: "bad port", out: "backend=h:0\n", err: "1-65535"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "out")
			if err := os.WriteFile(p, []byte(tt.out), 0o644); err != nil {
				t.Fatal(err)
			}
			tg := newTarget(t, wake.Spec{Command: []string{"cat", p}})
			res, err := tg.Wake(context.Background(), wake.Request{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %+v %v, want an error with %q", res, err, tt.err)
				}
				return
			}
			if err != nil || res.Backend != tt.backend {
				t.Fatalf("got %+v %v, want backend %q", res, err, tt.backend)
			}
		})
	}
}

func TestNonZeroExitCarriesTheStderrTail(t *testing.T) {
	cmd := script(t, "fail.sh", `i=0; while [ $i -lt 500 ]; do echo "noise line $i" >&2; i=$((i+1)); done
echo "docker: no such container: survival" >&2
exit 3
`)
	tg := newTarget(t, wake.Spec{Command: []string{cmd}})
	_, err := tg.Wake(context.Background(), wake.Request{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{wake.Name(tg.Key()), "exit status 3", "no such container: survival", "…"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %.300s", want, msg)
		}
	}
	if strings.Contains(msg, "noise line 0\n") || len(msg) > stderrTail+len(tg.Key())+200 {
		t.Errorf("stderr not bounded: %d bytes", len(msg))
	}
}

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func TestTimeoutKillsTheWholeProcessGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to tell a dead child from a live one")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child")
	// The child is started in the background and the script waits on it: a
	// kill of the script alone would leave the child running, orphaned.
	cmd := script(t, "hang.sh", `sleep 30 &
echo $! > "`+pidFile+`.tmp" && mv "`+pidFile+`.tmp" "`+pidFile+`"
echo "waiting for the server" >&2
wait
`)
	const timeout = 500 * time.Millisecond
	tg := newTarget(t, wake.Spec{Command: []string{cmd}, Timeout: timeout})
	t0 := time.Now()
	_, err := tg.Wake(context.Background(), wake.Request{})
	took := time.Since(t0)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "process group") ||
		!strings.Contains(err.Error(), "waiting for the server") {
		t.Fatalf("wake of a hanging command: %v", err)
	}
	if took < timeout || took > timeout+pipeGrace+time.Second {
		t.Errorf("wake returned after %s (timeout %s)", took, timeout)
	}
	b, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatalf("the script did not record its child: %v", rerr)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	mctest.WaitFor(t, "the background child to be gone", 2*time.Second, func() bool { return !alive(pid) })
	t.Logf("timeout %s: wake returned after %s, child %d gone", timeout, took.Round(time.Millisecond), pid)
}

func TestSuccessfulCommandMayLeaveAChildRunning(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child")
	// The child keeps stdout open: the run must still end (after pipeGrace),
	// succeed, and leave the child alone.
	cmd := script(t, "spawn.sh", `sleep 30 &
echo $! > "`+pidFile+`"
echo backend=10.9.0.33:25565
`)
	tg := newTarget(t, wake.Spec{Command: []string{cmd}, Timeout: 10 * time.Second})
	res, err := tg.Wake(context.Background(), wake.Request{})
	if err != nil || res.Backend != "10.9.0.33:25565" {
		t.Fatalf("wake: %+v %v", res, err)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 || !alive(pid) {
		t.Fatalf("the background child %d of a successful command is gone", pid)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	mctest.WaitFor(t, "the test's cleanup of the child", 2*time.Second, func() bool { return !alive(pid) })
}

func TestSleepRunsTheSleepCommandOrNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "slept")
	sleepCmd := script(t, "sleep.sh", `echo "$GATE_WAKE_ACTION $GATE_WAKE_SERVER_ADDRESS" > "`+out+`"`+"\n")
	tg := newTarget(t, wake.Spec{Command: []string{"true"}, SleepCommand: []string{sleepCmd}})
	if err := tg.Sleep(context.Background(), wake.Request{ServerAddress: "s.example.com"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "sleep s.example.com\n" {
		t.Errorf("sleep command saw %q", b)
	}
	none := newTarget(t, wake.Spec{Command: []string{"true"}})
	if err := none.Sleep(context.Background(), wake.Request{}); err != nil {
		t.Errorf("sleep without a sleep command: %v", err)
	}
	failing := newTarget(t, wake.Spec{Command: []string{"true"}, SleepCommand: []string{"false"}})
	if err := failing.Sleep(context.Background(), wake.Request{}); err == nil || !strings.Contains(err.Error(), "sleep") {
		t.Errorf("failing sleep command: %v", err)
	}
}

func TestConcurrentWakesRunIndependently(t *testing.T) {
	cmd := script(t, "echo.sh", `echo "backend=$GATE_WAKE_SERVER_ADDRESS:25565"`+"\n")
	tg := newTarget(t, wake.Spec{Command: []string{cmd}})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			host := "h" + strconv.Itoa(i)
			res, err := tg.Wake(context.Background(), wake.Request{ServerAddress: host})
			if err == nil && res.Backend != host+":25565" {
				err = errors.New("wrong backend " + res.Backend)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSpecsThatCannotRunAreRejected(t *testing.T) {
	for _, s := range []wake.Spec{
		{Kind: wake.KindExec},
		{Kind: wake.KindExec, Command: []string{""}},
		{Kind: wake.KindExec, Command: []string{"no-such-program-gate-test"}},
		{Kind: wake.KindExec, Command: []string{"true"}, SleepCommand: []string{"no-such-program-gate-test"}},
		{Kind: wake.KindExec, Command: []string{"true"}, Timeout: -1},
		{Kind: wake.KindDocker, Command: []string{"true"}},
	} {
		if _, err := New(s, Options{}); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

// Regression (issue 30): a command inherited the proxy's whole environment,
// its tokens and credentials included.
func TestCommandGetsOnlyPathAndTheWakeVariables(t *testing.T) {
	t.Setenv("GATE_TEST_SECRET_TOKEN", "s3cret")
	out := filepath.Join(t.TempDir(), "env")
	tg := newTarget(t, wake.Spec{Command: []string{"sh", "-c", `env > "$0"`, out}})
	if _, err := tg.Wake(context.Background(), wake.Request{ServerAddress: "lobby.example.com", Backend: "10.9.0.30:25565"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for line := range strings.Lines(string(b)) {
		name, _, _ := strings.Cut(line, "=")
		switch name {
		case "PWD", "SHLVL", "_": // the shell sets these itself
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{EnvAction, EnvBackend, EnvServerAddress, "PATH"}
	if !slices.Equal(names, want) {
		t.Fatalf("the command's environment has %v, want %v", names, want)
	}
	if !strings.Contains(string(b), "PATH="+os.Getenv("PATH")+"\n") {
		t.Errorf("the command's PATH is not the proxy's:\n%s", b)
	}
}
