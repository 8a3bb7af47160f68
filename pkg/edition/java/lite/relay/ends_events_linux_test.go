//go:build linux

package relay

import (
	"errors"
	"io"
	"syscall"
	"testing"
	"time"
)

// The events the tables take come from the sockets: each case makes a socket do what
// a peer does, lets the link serve the edge the poller would report, and checks where
// the directions and the timer stand.

// serveUntil serves the edge events of socket sock until cond holds.
func (g *endsRig) serveUntil(t *testing.T, what string, sock uint8, events uint32, cond func() bool) {
	t.Helper()
	waitCond(t, what, func() bool {
		g.l.serve(sock, events)
		g.l.lp.mu.Lock()
		defer g.l.lp.mu.Unlock()
		return cond()
	})
}

// states reports where both directions and the timer stand, under the link's lock.
func (g *endsRig) states() (up, down dirState, timer timerKind) {
	g.l.lp.mu.Lock()
	defer g.l.lp.mu.Unlock()
	return g.l.up.io.state, g.l.down.io.state, g.l.lp.timerKind
}

// holdUp fills the backend's side until the up direction's write blocks: the server
// reads nothing, and the relay's own send buffer is small.
func (g *endsRig) holdUp(t *testing.T) {
	t.Helper()
	_ = syscall.SetsockoptInt(g.l.lp.fd[sockBackend], syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096)
	_ = g.server.SetReadBuffer(4096)
	go func() { _, _ = g.player.Write(make([]byte, 256<<10)) }()
	g.serveUntil(t, "the up direction held", sockClient, syscall.EPOLLIN, func() bool {
		return g.l.up.io.state == dirHeld
	})
}

func TestEndsFollowTheSockets(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, g *endsRig)
	}{
		{"the player's FIN after its bytes ends its direction cleanly", playerFINAfterBytes},
		{"a backend reset fails its direction and stops the other", backendReset},
		{"a backend that reads nothing holds the player's bytes until it reads", backendPause},
		{"a player who hangs up while held shortens the stall bound", playerLeavesWhileHeld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newEndsRig(t)) })
	}
}

func playerFINAfterBytes(t *testing.T, g *endsRig) {
	if _, err := g.player.Write([]byte("bye")); err != nil {
		t.Fatal(err)
	}
	_ = g.player.CloseWrite()
	g.serveUntil(t, "the up direction ended", sockClient, syscall.EPOLLIN|syscall.EPOLLRDHUP, func() bool {
		return g.l.up.io.state == dirEnded
	})
	if got, err := io.ReadAll(g.server); err != nil || string(got) != "bye" {
		t.Fatalf("server read %q, %v; want the bytes and EOF", got, err)
	}
	if up, down, timer := g.states(); down != dirOpen || timer != timerLinger {
		t.Fatalf("up %v down %v timer %v; want the down direction open under the linger", up, down, timer)
	}
	if res := g.end(t); res.First != Client || res.UpErr != nil {
		t.Fatalf("result %+v; want the player's clean end first", res)
	}
}

func backendReset(t *testing.T, g *endsRig) {
	_ = g.server.SetLinger(0)
	_ = g.server.Close()
	g.serveUntil(t, "both directions ended", sockBackend, syscall.EPOLLIN|syscall.EPOLLHUP|syscall.EPOLLERR, func() bool {
		return g.l.down.io.state == dirEnded && g.l.up.io.state == dirEnded
	})
	res := g.end(t)
	if res.First != Backend || !errors.Is(res.DownErr, syscall.ECONNRESET) || res.UpErr != errStopped {
		t.Fatalf("result %+v; want the backend's reset first and the up direction stopped", res)
	}
}

func backendPause(t *testing.T, g *endsRig) {
	g.holdUp(t)
	if up, _, timer := g.states(); up != dirHeld || timer != timerStall || g.r.Stats().Waiting != 1 {
		t.Fatalf("up %v timer %v waiting %d; want held under the stall bound", up, timer, g.r.Stats().Waiting)
	}
	// The backend reads again (and the relay's send buffer is back to a size a pipe's
	// pages fit in): its socket's next writable edge flushes what was held.
	_ = syscall.SetsockoptInt(g.l.lp.fd[sockBackend], syscall.SOL_SOCKET, syscall.SO_SNDBUF, 1<<20)
	go func() { _, _ = io.Copy(io.Discard, g.server) }()
	g.serveUntil(t, "the held bytes flushed", sockBackend, syscall.EPOLLOUT, func() bool {
		return g.l.up.io.state == dirOpen
	})
	if _, _, timer := g.states(); timer != timerNone || g.r.Stats().Waiting != 0 {
		t.Fatalf("timer %v waiting %d after the flush; want neither", timer, g.r.Stats().Waiting)
	}
}

func playerLeavesWhileHeld(t *testing.T, g *endsRig) {
	g.holdUp(t)
	_ = g.player.SetLinger(0)
	_ = g.player.Close()
	start := time.Now()
	g.serveUntil(t, "the player's departure seen", sockClient, syscall.EPOLLIN|syscall.EPOLLHUP|syscall.EPOLLERR, func() bool {
		return g.l.lp.clientGone
	})
	g.l.lp.mu.Lock()
	up, timer, left := g.l.up.io.state, g.l.lp.timerKind, time.Until(g.l.lp.due)
	g.l.lp.mu.Unlock()
	if up != dirHeldDraining || timer != timerStall || left > LeftGrace || left < LeftGrace-time.Since(start) {
		t.Fatalf("up %v timer %v due in %v; want held-draining, the stall bound cut to %v", up, timer, left, LeftGrace)
	}
}
