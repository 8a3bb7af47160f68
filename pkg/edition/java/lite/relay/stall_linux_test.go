//go:build linux

package relay

import (
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// blocked waits until counter stops moving: the writer is held by flow control.
func blocked(t *testing.T, counter *atomic.Int64) {
	t.Helper()
	last, since := int64(-1), time.Now()
	mctest.WaitFor(t, "writer blocked by flow control", 20*time.Second, func() bool {
		if v := counter.Load(); v != last {
			last, since = v, time.Now()
			return false
		}
		return time.Since(since) > 300*time.Millisecond
	})
}

// TestPipeKeepsAPlayersBytesThroughABackendPause pins issue 20's item 4: a backend
// that stopped reading for 2.5 s (a GC pause, a world save) while the player uploaded
// got the session cut at the old 1 s stall bound and lost megabytes. A player who is
// still there keeps the vanilla server's patience: all 16 MiB arrive, byte-exact.
func TestPipeKeepsAPlayersBytesThroughABackendPause(t *testing.T) {
	const size, pause = 16 << 20, 2500 * time.Millisecond
	var r Relay
	p := startPipe(t, &r, Options{})
	// A small receive buffer, so the upload cannot fit in the kernel's buffers and the
	// relay's write to the backend has to wait out the pause.
	_ = p.server.SetReadBuffer(128 << 10)
	up := seeded(20, size)
	wrote := make(chan error, 1)
	go func() {
		_, err := p.player.Write(up)
		wrote <- err
	}()
	// The backend's 128 KiB cannot take 16 MiB: the upward copy waits on it.
	mctest.WaitFor(t, "the relay waiting on the paused backend", pause, func() bool { return r.Stats().Waiting > 0 })
	<-time.After(pause) // the backend's pause is the fault under test, not a wait for something
	got := sha256.New()
	n, err := io.CopyN(got, p.server, size)
	if err != nil || n != size {
		t.Fatalf("backend got %d of %d bytes: %v", n, size, err)
	}
	if want := sha256.Sum256(up); [32]byte(got.Sum(nil)) != want {
		t.Fatal("backend got 16 MiB that differ from what the player sent")
	}
	if err := <-wrote; err != nil {
		t.Fatalf("upload: %v", err)
	}
	_ = p.player.CloseWrite()
	_ = p.server.CloseWrite()
	res := p.wait(t, 10*time.Second)
	if res.UpErr != nil || res.Up != size {
		t.Fatalf("result %+v; want the whole upload moved cleanly", res)
	}
}

// A player who leaves while the backend has stopped reading is released within about
// LeftGrace, not at StallTimeout: its reset reaches the relay's poller even though its
// socket still holds bytes nobody read.
func TestPipeReleasesAPlayerWhoLeavesAStalledBackend(t *testing.T) {
	tests := []struct {
		name  string
		leave func(*net.TCPConn)
	}{
		{"reset (SO_LINGER 0)", func(c *net.TCPConn) { _ = c.SetLinger(0); _ = c.Close() }},
		// A close with received bytes unread is a reset too (RFC 2525), which is how a
		// game client that quits mid-session leaves.
		{"close with unread bytes", func(c *net.TCPConn) { _ = c.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Relay
			p := startPipe(t, &r, Options{})
			if _, err := p.server.Write([]byte("keep-alive")); err != nil {
				t.Fatal(err)
			}
			mctest.WaitFor(t, "the backend's bytes waiting at the player", 5*time.Second, func() bool {
				return inQueue(t, p.player) > 0
			})
			var written atomic.Int64
			flooded := mctest.Flood(p.player, &written)
			blocked(t, &written)
			left := time.Now()
			tt.leave(p.player)
			res := p.wait(t, StallTimeout/2)
			<-flooded
			el := time.Since(left)
			t.Logf("pipe ended %v after the player left", el.Round(time.Millisecond))
			if el > LeftGrace+time.Second {
				t.Errorf("pipe ended %v after the player left; want about %v", el, LeftGrace)
			}
			if res.First != Client || !errors.Is(res.UpErr, ErrClientGone) {
				t.Fatalf("result %+v; want the up direction ended as the player's departure", res)
			}
		})
	}
}

// A player who stays while the backend accepts nothing for the whole stall timeout:
// the backend is stuck, and the session ends with ErrBackendStalled.
func TestPipeEndsWhenTheBackendStallsPastTheTimeout(t *testing.T) {
	r := Relay{BackendStall: 300 * time.Millisecond}
	p := startPipe(t, &r, Options{})
	var written atomic.Int64
	flooded := mctest.Flood(p.player, &written)
	res := p.wait(t, 20*time.Second)
	_ = p.player.Close()
	<-flooded
	if res.First != Client || !errors.Is(res.UpErr, ErrBackendStalled) || errors.Is(res.UpErr, ErrClientGone) {
		t.Fatalf("result %+v; want the up direction ended by the stall timeout", res)
	}
}
