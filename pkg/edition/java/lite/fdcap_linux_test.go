//go:build linux

package lite_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/admin"
)

// fdCapChildEnv makes the test binary the proxy under a low open-files limit (the
// limit is process-wide, so it cannot be lowered inside the test process itself).
const fdCapChildEnv = "GATE_TEST_FDCAP_BACKEND"

// TestPlayersPastTheOpenFilesCapAreToldTheProxyIsFull pins issue 20's item 3: under
// ulimit -n 300 with 250 logins, 106 players waited their whole timeout with no answer
// and /healthz could not be reached. The proxy now derives its connection cap from the
// limit: each of 250 players held open either joins or gets the proxy-full text in
// time, none hangs, and the admin API answers 200 throughout. The proxy and its admin
// API run in a child process at RLIMIT_NOFILE 300; the backend and the players run
// here, so the child's descriptors are the proxy's own.
func TestPlayersPastTheOpenFilesCapAreToldTheProxyIsFull(t *testing.T) {
	if backend := os.Getenv(fdCapChildEnv); backend != "" {
		runCappedProxy(t, backend)
		return
	}
	const players, limit = 250, 300
	b := newBackend(t, "")
	proxyAddr, adminAddr := startCappedProxy(t, b.addr)
	health := probeHealth(adminAddr)
	// Two waves: the first fills the proxy, the second arrives at a full proxy (where
	// accept used to fail for want of a descriptor).
	w := &waves{}
	w.run(proxyAddr, 200, players-200)
	// The proxy is at its cap now, with every joined player held: the API still answers.
	atCap := health.probes()
	waitFor(t, "five health probes at the cap", 20*time.Second, func() bool { return health.probes() >= atCap+5 })
	health.close()
	w.release()
	t.Logf("%d players: %d joined, %d told the proxy is full, %d without an answer; slowest answer %v; /healthz %d ok, %d not",
		players, w.joined.Load(), w.full.Load(), w.hung.Load(), time.Duration(w.slowest.Load()).Round(time.Millisecond), health.ok.Load(), health.bad.Load())
	if w.hung.Load() != 0 {
		t.Errorf("%d players got no answer, e.g. %v", w.hung.Load(), w.others[:min(3, len(w.others))])
	}
	if w.joined.Load() == 0 || w.full.Load() == 0 {
		t.Errorf("want some players joined and some refused at RLIMIT_NOFILE %d", limit)
	}
	if health.bad.Load() != 0 || health.ok.Load() == 0 {
		t.Errorf("/healthz: %d ok, %d not (last: %v)", health.ok.Load(), health.bad.Load(), health.lastBad.Load())
	}
}

// startCappedProxy runs this test binary as the proxy under the open-files cap (see
// runCappedProxy), serving backend, and returns the proxy's and the admin API's
// addresses. The child stops when the test ends.
func startCappedProxy(t *testing.T, backend string) (proxyAddr, adminAddr string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlayersPastTheOpenFilesCapAreToldTheProxyIsFull$", "-test.count=1")
	cmd.Env = append(os.Environ(), fdCapChildEnv+"="+backend)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	exited := make(chan error, 1)
	addrs := make(chan string, 1)
	go func() {
		line, _ := out.ReadString('\n')
		addrs <- line
		_, _ = io.Copy(io.Discard, out) // the child's test output
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = stdin.Close() // the child's signal to stop
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("proxy process: %v\n%s", err, stderr.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill() // the child, by its PID
			<-exited
			t.Errorf("proxy process did not stop\n%s", stderr.String())
		}
	})
	return childAddrs(t, addrs)
}

// healthProbe asks the admin API's /healthz every 20ms until closed.
type healthProbe struct {
	ok, bad atomic.Int64
	lastBad atomic.Value
	stop    chan struct{}
	wg      sync.WaitGroup
}

func probeHealth(adminAddr string) *healthProbe {
	h := &healthProbe{stop: make(chan struct{})}
	h.wg.Go(func() {
		hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		for {
			resp, err := hc.Get("http://" + adminAddr + admin.PathHealthz)
			if err == nil && resp.StatusCode == http.StatusOK {
				h.ok.Add(1)
			} else {
				h.bad.Add(1)
				h.lastBad.Store(fmt.Sprint(resp, err))
			}
			if resp != nil {
				_ = resp.Body.Close()
			}
			select {
			case <-h.stop:
				return
			case <-time.After(20 * time.Millisecond): // the probe rate
			}
		}
	})
	return h
}

func (h *healthProbe) probes() int64 { return h.ok.Load() + h.bad.Load() }

func (h *healthProbe) close() {
	close(h.stop)
	h.wg.Wait()
}

// waves logs players in, wave after wave, and counts how each fared: joined (held
// open until release), told the proxy is full, or without an answer.
type waves struct {
	joined, full, hung atomic.Int64
	slowest            atomic.Int64 // the slowest answer since its wave's start
	mu                 sync.Mutex
	held               []net.Conn
	others             []string // what the players without an answer got
}

// run logs in each wave's players at once through the proxy at addr, a wave after the
// previous one has its answers.
func (w *waves) run(addr string, sizes ...int) {
	first := 0
	for _, n := range sizes {
		start := time.Now()
		var wg sync.WaitGroup
		for i := first; i < first+n; i++ {
			wg.Go(func() { w.login(addr, i, start) })
		}
		wg.Wait()
		first += n
	}
}

func (w *waves) login(addr string, i int, start time.Time) {
	pre := mctest.LoginPreamble(765, "x.example.com", fmt.Sprintf("p%d", i))
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		w.hung.Add(1)
		return
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = c.Write(pre)
	got := make([]byte, len(pre))
	n, err := io.ReadFull(c, got)
	took := time.Since(start)
	for old := w.slowest.Load(); int64(took) > old && !w.slowest.CompareAndSwap(old, int64(took)); old = w.slowest.Load() {
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil && bytes.Equal(got, pre):
		w.joined.Add(1)
		w.held = append(w.held, c) // held open until every player has its answer
		return
	case bytes.Contains(got[:n], []byte("This proxy is full")):
		w.full.Add(1)
	default:
		w.hung.Add(1)
		w.others = append(w.others, fmt.Sprintf("%q %v", got[:n], err))
	}
	_ = c.Close()
}

// release closes the joined players' connections.
func (w *waves) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.held {
		_ = c.Close()
	}
}

// childAddrs reads the proxy's and the admin API's addresses from the child's first
// line.
func childAddrs(t *testing.T, line <-chan string) (proxy, adm string) {
	t.Helper()
	select {
	case s := <-line:
		if _, err := fmt.Sscanf(s, "FDCAP %s %s", &proxy, &adm); err != nil {
			t.Fatalf("child said %q: %v", s, err)
		}
		return proxy, adm
	case <-time.After(20 * time.Second):
		t.Fatal("the proxy process did not start")
		return "", ""
	}
}

// runCappedProxy is the child: it lowers its open-files limit, serves the proxy and the
// admin API on loopback, prints their addresses and runs until stdin closes (the
// proxy then stops with the test).
func runCappedProxy(t *testing.T, backend string) {
	// The hard limit too: nothing in the process may raise the soft one past it.
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 300, Max: 300}); err != nil {
		t.Fatal(err)
	}
	// What a gate process holds besides the proxy's own sockets: a log file, the
	// config watcher, the metrics endpoint's listener.
	for range 3 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
	}
	p := startProxy(t, oneRoute("*", backend).quotasOff("maxConnectionsPerIP: 0").withLite("shutdownGrace: 1s").String())
	aln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = admin.New(admin.Options{Source: p.Lite}).Serve(ctx, aln) })
	fmt.Printf("FDCAP %s %s\n", p.addr, aln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	wg.Wait()
}
