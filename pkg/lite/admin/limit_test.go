package admin

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
)

// countingListener records how many of its connections are open at most.
type countingListener struct {
	net.Listener
	open, peak atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	n := l.open.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &countedConn{Conn: c, release: sync.OnceFunc(func() { l.open.Add(-1) })}, nil
}

type countedConn struct {
	net.Conn
	release func()
}

func (c *countedConn) Close() error { c.release(); return c.Conn.Close() }

// serveCounted serves a test server and returns its address and the listener that
// counts the descriptors it holds.
func serveCounted(t *testing.T) (string, *countingListener) {
	t.Helper()
	s, _ := newTestServer(t, Options{})
	ln := &countingListener{Listener: mctest.Listen(t)}
	mctest.Run(t, "Serve", func(ctx context.Context) error { return s.Serve(ctx, ln) })
	return ln.Addr().String(), ln
}

// apiConn is a client connection that sends requests one after another (keep-alive).
type apiConn struct {
	net.Conn
	r *bufio.Reader
}

// dialFrom connects to addr from the loopback address from ("" for the default).
func dialFrom(t *testing.T, from, addr string) *apiConn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("dial from %s: %v (this system routes only 127.0.0.1)", from, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &apiConn{Conn: c, r: bufio.NewReader(c)}
}

// get sends GET path on the connection and waits at most timeout for the answer.
func (c *apiConn) get(path string, timeout time.Duration) error {
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// probe is one liveness probe, as a kubelet sends it: a new connection, one request,
// a second to answer.
func probe(t *testing.T, addr string) error {
	t.Helper()
	start := time.Now()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	return (&apiConn{Conn: c, r: bufio.NewReader(c)}).get(PathHealthz, time.Second-time.Since(start))
}

// probesAnswered runs 25 probes one after another and counts those answered in time.
func probesAnswered(t *testing.T, addr string) int {
	t.Helper()
	answered := 0
	for range 25 {
		if err := probe(t, addr); err == nil {
			answered++
		} else {
			t.Log("probe:", err)
		}
	}
	return answered
}

// Issue 30 item 4: 16 idle keep-alive connections held every admin slot for the
// server's minute-long idle timeout, and /healthz failed 20 of 25 probes. Now a
// newcomer takes the slot of the connection quiet the longest.
func TestIdleKeepAliveConnectionsDoNotStarveProbes(t *testing.T) {
	addr, ln := serveCounted(t)
	for range 64 {
		c := dialFrom(t, "", addr)
		_ = c.get(PathHealthz, time.Second) // later ones may cut it: only idleness matters
	}
	if got := probesAnswered(t, addr); got != 25 {
		t.Fatalf("with 64 idle keep-alive connections %d of 25 probes answered within a second", got)
	}
	if peak := ln.peak.Load(); peak > lite.AdminConns {
		t.Fatalf("%d connections open at once, want at most lite.AdminConns (%d)", peak, lite.AdminConns)
	}
}

// Requests sent a byte at a time (slowloris) from one address are cut for the probes
// too, and not only when ReadHeaderTimeout ends them.
func TestSlowRequestsDoNotStarveProbes(t *testing.T) {
	addr, ln := serveCounted(t)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()
	for range 64 {
		c := dialFrom(t, "", addr)
		wg.Go(func() { drip(ctx, c) })
	}
	if got := probesAnswered(t, addr); got != 25 {
		t.Fatalf("with 64 slow requests %d of 25 probes answered within a second", got)
	}
	if peak := ln.peak.Load(); peak > lite.AdminConns {
		t.Fatalf("%d connections open at once, want at most lite.AdminConns (%d)", peak, lite.AdminConns)
	}
}

// drip sends a request's header a byte every 50ms, never finishing it, until ctx
// ends or the server cuts the connection.
func drip(ctx context.Context, c *apiConn) {
	if _, err := c.Write([]byte("GET /api/v1/routes HTTP/1.1\r\nHost: 127.0.0.1\r\n")); err != nil {
		return
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if _, err := c.Write([]byte("X")); err != nil {
				return
			}
		}
	}
}

// One address holds at most half the slots: past its share a newcomer from it cuts
// its own longest-quiet connection, never another address's.
func TestOneAddressCannotHoldEverySlot(t *testing.T) {
	addr, _ := serveCounted(t)
	share := (lite.AdminConns - 1) / 2
	greedy := make([]*apiConn, lite.AdminConns)
	for i := range greedy {
		greedy[i] = dialFrom(t, "127.0.0.2", addr)
		if err := greedy[i].get(PathHealthz, 5*time.Second); err != nil {
			t.Fatalf("greedy connection %d: %v", i, err)
		}
	}
	if alive := aliveOf(greedy); alive != share {
		t.Fatalf("one address holds %d connections, want its share %d", alive, share)
	}
	var other []*apiConn
	for range share {
		c := dialFrom(t, "127.0.0.3", addr)
		if err := c.get(PathHealthz, 5*time.Second); err != nil {
			t.Fatal("other address:", err)
		}
		other = append(other, c)
	}
	for range 2 * lite.AdminConns {
		_ = dialFrom(t, "127.0.0.2", addr).get(PathHealthz, 5*time.Second)
	}
	if alive := aliveOf(other); alive != share {
		t.Fatalf("another address's new connections cut %d of its %d idle ones", share-alive, share)
	}
}

// aliveOf counts the connections that still answer a request.
func aliveOf(cs []*apiConn) int {
	n := 0
	for _, c := range cs {
		if c.get(PathHealthz, 5*time.Second) == nil {
			n++
		}
	}
	return n
}
