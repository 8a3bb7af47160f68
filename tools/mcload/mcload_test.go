package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// startBackend serves a fake backend on a loopback port until the test ends.
func startBackend(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newBackend("test").serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("backend: %v", err)
		}
	})
	return ln.Addr().String()
}

func testTarget(addr string, pids ...int) target {
	t := target{addr: addr, host: "play.example.com", protocol: 765, sampler: newSampler(pids)}
	t.spread(4)
	return t
}

func TestBackendLoginBehaviours(t *testing.T) {
	addr := startBackend(t)
	tgt := testTarget(addr)
	payload := []byte("hello through the proxy")
	tests := []struct {
		name string
		// check talks to the backend after the preamble was written.
		check func(t *testing.T, c *net.TCPConn, pre []byte)
	}{
		{nameEcho, func(t *testing.T, c *net.TCPConn, pre []byte) {
			_, _ = c.Write(payload)
			want := append(append([]byte(nil), pre...), payload...)
			got := make([]byte, len(want))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("echo: %v, got %q", err, got)
			}
		}},
		{nameIdle, func(t *testing.T, c *net.TCPConn, pre []byte) {
			got := make([]byte, len(pre))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, pre) {
				t.Fatalf("idle echo: %v", err)
			}
		}},
		{nameSource, func(t *testing.T, c *net.TCPConn, _ []byte) {
			n, err := io.CopyN(io.Discard, c, 1<<20)
			if err != nil || n != 1<<20 {
				t.Fatalf("source: read %d, %v", n, err)
			}
		}},
		{nameSink, func(t *testing.T, c *net.TCPConn, _ []byte) {
			if _, err := c.Write(bytes.Repeat(payload, 1000)); err != nil {
				t.Fatalf("sink write: %v", err)
			}
			_ = c.CloseWrite()
			if n, err := io.Copy(io.Discard, c); err != nil || n != 0 {
				t.Fatalf("sink answered %d bytes (%v), want nothing", n, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tgt.dial()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			pre := tgt.loginPreamble(tt.name, 0)
			if _, err := c.Write(pre); err != nil {
				t.Fatal(err)
			}
			tt.check(t, c, pre)
		})
	}
}

func TestPingOnceIsAFullExchange(t *testing.T) {
	addr := startBackend(t)
	tgt := testTarget(addr)
	r := &frameReader{buf: make([]byte, 0, 64)} // small: the response makes it grow
	for i := range 3 {
		if err := pingOnce(tgt, tgt.statusPreamble(), r); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
	}
}

func TestStatusStormAccounting(t *testing.T) {
	// How many pings finish inside the window depends on the machine; what must hold
	// is no errors and a consistent summary of whatever was counted.
	addr := startBackend(t)
	res, err := statusStorm(context.Background(), testTarget(addr, os.Getpid()), 4, 50*time.Millisecond, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 0 || res.Concurrency != 4 || res.Seconds != 0.3 || res.OpsPerSec != float64(res.Ops)/0.3 {
		t.Fatalf("storm result %+v", res)
	}
	if res.Ops > 0 && (res.P50 > res.P99 || res.P99 > res.Max) {
		t.Fatalf("percentiles out of order: %+v", res.latencies)
	}
	if res.CPUSeconds < 0 {
		t.Fatalf("negative CPU time %v", res.CPUSeconds)
	}
}

func TestSetupMeasuresEveryConnection(t *testing.T) {
	addr := startBackend(t)
	for _, intent := range []string{"status", "login"} {
		t.Run(intent, func(t *testing.T) {
			fs := flag.NewFlagSet("setup", flag.ContinueOnError)
			res, err := runSetup(context.Background(), fs, []string{"-addr", addr, "-n", "30", "-warmup", "5", "-intent", intent})
			if err != nil {
				t.Fatal(err)
			}
			if res.N != 30 || res.Errors != 0 || res.P50 <= 0 || res.Intent != intent {
				t.Fatalf("setup result %+v", res)
			}
		})
	}
}

func TestThroughputAccounting(t *testing.T) {
	// The bytes that arrive inside the window depend on the machine (the source
	// streams are checked byte by byte in TestBackendLoginBehaviours).
	addr := startBackend(t)
	res, err := throughput(context.Background(), testTarget(addr), 2, 50*time.Millisecond, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Streams != 2 || res.Bytes < 0 || res.MBPerSec != float64(res.Bytes)/0.3/1e6 {
		t.Fatalf("throughput result %+v", res)
	}
}

func TestHoldCountsDescriptorsPerSession(t *testing.T) {
	addr := startBackend(t)
	// Sampling this very process: each session is a client socket and the backend's
	// accepted socket, so two descriptors. The count is process-wide, and a descriptor
	// that is not the test's (the runtime's, the test framework's, a late close of an
	// earlier test) may come or go between the samples: one of those is tolerated,
	// a session costing one or three is not.
	const n = 40
	res, err := hold(context.Background(), testTarget(addr, os.Getpid()), n, 4, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != n || res.Errors != 0 || math.Abs(res.FDsPerSession-2) > 1.5/n {
		t.Fatalf("hold result %+v", res)
	}
	// The backend closes its ends as it reads each EOF; wait for all of them.
	self := newSampler([]int{os.Getpid()})
	mctest.WaitFor(t, "the sessions' descriptors to close", 5*time.Second, func() bool {
		u, err := self.sample()
		if err != nil {
			t.Fatal(err)
		}
		return u.FDs <= res.Before.FDs // at most where it started (see above)
	})
}

func TestRunRejectsBadUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no subcommand", nil},
		{"unknown subcommand", []string{"benchmark"}},
		{"unknown flag", []string{"status", "-bogus"}},
		{"bad intent", []string{"setup", "-intent", "play"}},
		{"bad pid", []string{"status", "-pid", "12,x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tt.args, &out, io.Discard)
			if err == nil || out.Len() != 0 {
				t.Fatalf("run(%q) = %v, printed %q; want an error and nothing printed", tt.args, err, out.String())
			}
			if tt.name != "bad pid" && !errors.Is(err, errUsage) {
				t.Fatalf("run(%q) = %v; want errUsage", tt.args, err)
			}
		})
	}
}

func TestRunPrintsOneJSONLine(t *testing.T) {
	addr := startBackend(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"setup", "-addr", addr, "-n", "3", "-warmup", "0", "-label", "direct"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var res setupResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if res.Mode != "setup" || res.Label != "direct" || res.N != 3 {
		t.Fatalf("decoded %+v", res)
	}
}

func TestStatusPreambleIsAHandshakeAndRequest(t *testing.T) {
	pre := testTarget("x").statusPreamble()
	hs, n, err := wire.ParseHandshake(pre)
	if err != nil || hs.Intent != wire.IntentStatus || hs.Address != "play.example.com" {
		t.Fatalf("handshake %+v, %v", hs, err)
	}
	id, payload, m, err := wire.ParseFrame(pre[n:], 16)
	if err != nil || id != wire.IDStatusRequest || len(payload) != 0 || n+m != len(pre) {
		t.Fatalf("status request id %d payload %d bytes, %v", id, len(payload), err)
	}
}
