//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// gateProc is the real gate binary running as processes of its own, the way an
// operator runs it: the first started here, each next one by an upgrade of the one
// before. The test process adopts the orphans (a child subreaper), so it reaps them.
// Every process writes to one log file.
type gateProc struct {
	t      *testing.T
	log    string
	addr   string // the players' listener
	pid    int    // the current process
	exited chan syscall.WaitStatus
}

var subreaper sync.Once

// buildGate compiles this command into dir.
func buildGate(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "gate")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var (
	listeningRE = regexp.MustCompile(`msg=listening bind=(\S+)`)
	successorRE = regexp.MustCompile(`handing the sessions over" pid=(\d+)`)
)

// startGateProc runs bin with the config at path and waits until it listens.
func startGateProc(t *testing.T, bin, path string) *gateProc {
	t.Helper()
	subreaper.Do(func() {
		if _, _, errno := syscall.Syscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
			t.Fatalf("child subreaper: %v", errno)
		}
	})
	g := &gateProc{t: t, log: filepath.Join(t.TempDir(), "gate.log")}
	logf, err := os.Create(g.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	proc, err := os.StartProcess(bin, []string{bin, "--config", path}, &os.ProcAttr{Files: []*os.File{nil, logf, logf}})
	if err != nil {
		t.Fatal(err)
	}
	g.follow(proc.Pid)
	t.Cleanup(g.stop)
	waitUntil(t, "gate to listen", func() bool { return listeningRE.MatchString(g.logs()) })
	g.addr = listeningRE.FindStringSubmatch(g.logs())[1]
	return g
}

const prSetChildSubreaper = 36

func (g *gateProc) logs() string {
	b, _ := os.ReadFile(g.log)
	return string(b)
}

// follow makes pid the current process and reaps it when it exits.
func (g *gateProc) follow(pid int) {
	g.pid, g.exited = pid, make(chan syscall.WaitStatus, 1)
	go func(ch chan<- syscall.WaitStatus) {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		ch <- ws
	}(g.exited)
}

func (g *gateProc) stop() {
	_ = syscall.Kill(g.pid, syscall.SIGTERM)
	<-g.exited
}

// upgrade sends SIGUSR2, runs then (if any), waits for the current process to exit
// (0) and follows its successor; it returns how long the old process took to go.
func (g *gateProc) upgrade(then func()) time.Duration {
	g.t.Helper()
	start := time.Now()
	if err := syscall.Kill(g.pid, syscall.SIGUSR2); err != nil {
		g.t.Fatal(err)
	}
	if then != nil {
		then()
	}
	return g.succeeded(start)
}

// succeeded waits for the current process to exit (0) after an upgrade began at
// start, follows its successor and returns how long the old process took to go.
func (g *gateProc) succeeded(start time.Time) time.Duration {
	g.t.Helper()
	var ws syscall.WaitStatus
	select {
	case ws = <-g.exited:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(g.pid, syscall.SIGQUIT) // its goroutines, into the log
		<-g.exited
		g.t.Fatalf("old gate did not exit after SIGUSR2; log:\n%s", g.logs())
	}
	took := time.Since(start)
	if !ws.Exited() || ws.ExitStatus() != 0 {
		g.t.Fatalf("old gate ended %v; log:\n%s", ws, g.logs())
	}
	m := successorRE.FindAllStringSubmatch(g.logs(), -1)
	if m == nil {
		g.t.Fatalf("no successor named in the log:\n%s", g.logs())
	}
	pid, _ := strconv.Atoi(m[len(m)-1][1])
	g.follow(pid)
	return took
}

// waitLog waits until the log holds want n times.
func (g *gateProc) waitLog(want string, n int) {
	g.t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(want))
	waitUntil(g.t, fmt.Sprintf("%d log lines with %q", n, want), func() bool { return len(re.FindAllString(g.logs(), -1)) >= n })
}

// dialTCP connects to addr.
func dialTCP(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
