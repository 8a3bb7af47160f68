//go:build linux

package lite_test

import (
	"crypto/sha256"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/relay"
)

// TestBackendPauseKeepsThePlayersUpload pins issue 20's item 4: a backend that stopped
// reading for 2.5 s (a GC pause, a world save) while the player uploaded fast had the
// session cut at the old 1 s stall bound, and about 4.7 MB the player had sent never
// arrived. The player is still there, so it gets the backend's whole pause.
func TestBackendPauseKeepsThePlayersUpload(t *testing.T) {
	const size, pause = 16 << 20, 2500 * time.Millisecond
	pre := preamble()
	up := seededBytes(20, size)
	type arrival struct {
		n   int64
		sum [32]byte
	}
	got := make(chan arrival, 1)
	b := newScriptBackend(t, len(pre), func(c *net.TCPConn) {
		// A small receive buffer, so the upload cannot hide in the kernel's buffers.
		_ = c.SetReadBuffer(128 << 10)
		_, _ = c.Write(serverAnswer)
		<-time.After(pause) // the pause is the fault under test, not a wait for something
		h := sha256.New()
		n, _ := io.Copy(h, c) // until the player's FIN
		got <- arrival{n, [32]byte(h.Sum(nil))}
	})
	ends := make(endings, 1)
	p := relayProxy(t, b.addr, ends)
	c := joinScripted(t, p.addr, pre)
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Write(up)
		wrote <- err
	}()
	// The backend's 128 KiB cannot take 16 MiB: the relay's upward copy waits on it.
	waitFor(t, "the relay waiting on the paused backend", pause, func() bool { return p.RelayStats().Waiting > 0 })
	if err := <-wrote; err != nil {
		t.Errorf("upload: %v", err) // what arrived is reported below
	}
	_ = c.CloseWrite()
	a := <-got
	if a.n != size || a.sum != sha256.Sum256(up) {
		t.Fatalf("backend got %d of %d bytes (hash equal: %v)", a.n, size, a.sum == sha256.Sum256(up))
	}
	ev := ends.next(t, 10*time.Second)
	if ev.Reason != lite.ReasonClientClosed || ev.BytesUp != int64(len(pre)+size) {
		t.Fatalf("ended %s up %d; want %s up %d", ev.Reason, ev.BytesUp, lite.ReasonClientClosed, len(pre)+size)
	}
}

// TestHalfClosedPlayerIsNotGone: a player who sent its last bytes and shut its
// side (FIN) while the backend pauses has not left; the FIN must not cut the
// wait to relay.LeftGrace, or the queued bytes never reach the backend.
func TestHalfClosedPlayerIsNotGone(t *testing.T) {
	const size, pause = 4 << 20, 2500 * time.Millisecond
	pre := preamble()
	up := seededBytes(21, size)
	got := make(chan int64, 1)
	b := newScriptBackend(t, len(pre), func(c *net.TCPConn) {
		_ = c.SetReadBuffer(128 << 10)
		_, _ = c.Write(serverAnswer)
		<-time.After(pause) // the pause is the fault under test, not a wait for something
		n, _ := io.Copy(io.Discard, c)
		got <- n
	})
	p := relayProxy(t, b.addr, make(endings, 1))
	c := joinScripted(t, p.addr, pre)
	// 4 MiB fit in the sockets' buffers, so the write returns during the pause and
	// the FIN follows at once.
	if _, err := c.Write(up); err != nil {
		t.Fatal(err)
	}
	_ = c.CloseWrite()
	if n := <-got; n != size {
		t.Fatalf("backend got %d of %d bytes after the player's FIN", n, size)
	}
}

// TestPlayerLeavingAStalledBackendIsReleased: a player who quits while the backend has
// stopped reading, with its own bytes still queued for it. Its reset reaches the relay
// even so, and the session, both sockets and the admission slot end within about
// relay.LeftGrace, not at relay.StallTimeout or when the backend reads again.
func TestPlayerLeavingAStalledBackendIsReleased(t *testing.T) {
	pre := preamble()
	keepAlive := []byte{0x09, 0x26, 1, 2, 3, 4, 5, 6, 7, 8}
	hold := make(chan struct{})
	b := newScriptBackend(t, len(pre), func(c *net.TCPConn) {
		_, _ = c.Write(append(append([]byte(nil), serverAnswer...), keepAlive...))
		<-hold // reads nothing more
	})
	t.Cleanup(func() { close(hold) })
	ends := make(endings, 1)
	p := relayProxy(t, b.addr, ends)
	c := joinScripted(t, p.addr, pre)
	var written atomic.Int64
	flooded := mctest.Flood(c, &written)
	plateau(t, written.Load)
	// The game quits with the keep-alive unread: its close is a reset.
	left := time.Now()
	_ = c.Close()
	ev := ends.next(t, relay.StallTimeout/2)
	<-flooded
	el := time.Since(left)
	t.Logf("session ended %v after the player left", el.Round(time.Millisecond))
	if el > relay.LeftGrace+time.Second {
		t.Errorf("session ended %v after the player left; want about %v", el, relay.LeftGrace)
	}
	if ev.Reason != lite.ReasonClientClosed {
		t.Errorf("ended %s; want %s", ev.Reason, lite.ReasonClientClosed)
	}
	admissionSettled(t, p)
}
