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

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlayersPastTheOpenFilesCapAreToldTheProxyIsFull$", "-test.count=1")
	cmd.Env = append(os.Environ(), fdCapChildEnv+"="+b.addr)
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
	proxyAddr, adminAddr := childAddrs(t, addrs)

	var healthOK, healthBad atomic.Int64
	var lastBad atomic.Value
	stopHealth := make(chan struct{})
	var probes sync.WaitGroup
	probes.Go(func() {
		hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		for {
			resp, err := hc.Get("http://" + adminAddr + admin.PathHealthz)
			if err == nil && resp.StatusCode == http.StatusOK {
				healthOK.Add(1)
			} else {
				healthBad.Add(1)
				lastBad.Store(fmt.Sprint(resp, err))
			}
			if resp != nil {
				_ = resp.Body.Close()
			}
			select {
			case <-stopHealth:
				return
			case <-time.After(20 * time.Millisecond): // the probe rate
			}
		}
	})

	var joined, full, hung atomic.Int64
	var slowest atomic.Int64
	var mu sync.Mutex
	var held []net.Conn
	var others []string
	// Two waves: the first fills the proxy, the second arrives at a full proxy (where
	// accept used to fail for want of a descriptor).
	for w, wave := range []int{200, players - 200} {
		start := time.Now()
		var wg sync.WaitGroup
		for j := range wave {
			i := w*200 + j
			wg.Go(func() {
				pre := mctest.LoginPreamble(765, "x.example.com", fmt.Sprintf("p%d", i))
				c, err := net.DialTimeout("tcp", proxyAddr, 5*time.Second)
				if err != nil {
					hung.Add(1)
					return
				}
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				_, _ = c.Write(pre)
				got := make([]byte, len(pre))
				n, err := io.ReadFull(c, got)
				took := time.Since(start)
				for old := slowest.Load(); int64(took) > old && !slowest.CompareAndSwap(old, int64(took)); old = slowest.Load() {
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && bytes.Equal(got, pre):
					joined.Add(1)
					held = append(held, c) // held open until every player has its answer
					return
				case bytes.Contains(got[:n], []byte("This proxy is full")):
					full.Add(1)
				default:
					hung.Add(1)
					others = append(others, fmt.Sprintf("%q %v", got[:n], err))
				}
				_ = c.Close()
			})
		}
		wg.Wait()
	}
	// The proxy is at its cap now, with every joined player held: the API still answers.
	atCap := healthOK.Load() + healthBad.Load()
	waitFor(t, "five health probes at the cap", 20*time.Second, func() bool {
		return healthOK.Load()+healthBad.Load() >= atCap+5
	})
	close(stopHealth)
	probes.Wait()
	for _, c := range held {
		_ = c.Close()
	}
	t.Logf("%d players: %d joined, %d told the proxy is full, %d without an answer; slowest answer %v; /healthz %d ok, %d not",
		players, joined.Load(), full.Load(), hung.Load(), time.Duration(slowest.Load()).Round(time.Millisecond), healthOK.Load(), healthBad.Load())
	if hung.Load() != 0 {
		t.Errorf("%d players got no answer, e.g. %v", hung.Load(), others[:min(3, len(others))])
	}
	if joined.Load() == 0 || full.Load() == 0 {
		t.Errorf("want some players joined and some refused at RLIMIT_NOFILE %d", limit)
	}
	if healthBad.Load() != 0 || healthOK.Load() == 0 {
		t.Errorf("/healthz: %d ok, %d not (last: %v)", healthOK.Load(), healthBad.Load(), lastBad.Load())
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
// admin API on loopback, prints their addresses and runs until stdin closes.
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
	cfg, _, err := config.Parse([]byte(oneRoute("*", backend).quotasOff("maxConnectionsPerIP: 0").withLite("shutdownGrace: 1s").String()), "fdcap.yml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := lite.New(cfg, lite.Options{Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	aln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = p.Serve(ctx, ln) })
	wg.Go(func() { _ = admin.New(admin.Options{Source: p}).Serve(ctx, aln) })
	fmt.Printf("FDCAP %s %s\n", ln.Addr(), aln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	wg.Wait()
}
