package lite_test

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// vanillaBackend says nothing until the player's Login Start is in, as a vanilla
// server does, then answers with the bytes it got and holds the session.
func vanillaBackend(t *testing.T) string {
	t.Helper()
	b := mctest.NewBackend(t, mctest.Options{Script: func(c *net.TCPConn) {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 0, 1024)
		for {
			n, err := c.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if _, size, perr := wire.ParseHandshake(buf); perr == nil {
				if _, _, _, ferr := wire.ParseFrame(buf[size:], 1024); !errors.Is(ferr, wire.ErrIncomplete) {
					_, _ = c.Write(buf)
					_, _ = io.Copy(io.Discard, c)
					return
				}
			}
			if err != nil {
				return
			}
		}
	}})
	return b.Addr()
}

// Regression (issue 30, silent clients): the first-response clock started when the
// preamble went out, whether or not the player had sent its Login Start; three
// connections that sent only a handshake ejected a route's healthy backends, and a
// sequential route then sent real players to its backup. A backend is not blamed for
// silence toward a player who has not spoken: the player's own deadline ends it.
func TestHandshakeOnlyClientsDoNotEjectHealthyBackends(t *testing.T) {
	primary, backup := vanillaBackend(t), vanillaBackend(t)
	p := startProxy(t, oneRoute("play.example.com", primary, backup).
		withTop("readTimeout: 1500ms").withLite("firstResponseTimeout: 200ms").quotasOff().String())
	for range 2 * strategy.EjectFailures {
		c := dialProxy(t, p.addr)
		c.send(handshake(765, "play.example.com", wire.IntentLogin))
		c.expectClosed() // at its read timeout: it never sent a Login Start
	}
	for _, addr := range []string{primary, backup} {
		if h := backendHealth(t, p, addr); h == strategy.HealthEjected {
			t.Fatalf("backend %s ejected by players who never spoke", addr)
		}
	}
	// A real player still lands on the primary, and within the first-response timeout
	// of its Login Start.
	c := dialProxy(t, p.addr)
	pre := mctest.LoginPreamble(765, "play.example.com", "Steve")
	c.send(pre)
	if got := c.readN(len(pre)); string(got) != string(pre) {
		t.Fatalf("the player was not served: got %x", got)
	}
	if n := activeOn(p, primary); n != 1 {
		t.Fatalf("primary holds %d players, want 1 (the player went to the backup)", n)
	}
}

// A player who sends its Login Start late (after the first-response timeout, within
// its read timeout) is still served: no backend is dialled before the Login Start is
// in (it names the player the access lists judge), so the backend's clock cannot
// start before it.
func TestLateLoginStartStillJoins(t *testing.T) {
	b := vanillaBackend(t)
	p := startProxy(t, oneRoute("play.example.com", b).
		withTop("readTimeout: 3s").withLite("firstResponseTimeout: 200ms").quotasOff().String())
	c := dialProxy(t, p.addr)
	hs := handshake(765, "play.example.com", wire.IntentLogin)
	c.send(hs)
	time.Sleep(400 * time.Millisecond) // the player is slow: the thing under test
	if n := unsettledOn(p, b); n != 0 {
		t.Fatalf("%d logins sent to the backend before the Login Start, want none", n)
	}
	ls := loginStart("Steve")
	c.send(ls)
	if got := c.readN(len(hs) + len(ls)); string(got) != string(append(hs, ls...)) {
		t.Fatalf("got %x", got)
	}
}

// unsettledOn is how many login attempts to addr await the backend's first answer.
func unsettledOn(p *proxy, addr string) int64 {
	for _, s := range p.Manager().Snapshot() {
		if s.Addr == addr {
			return s.Unsettled
		}
	}
	return 0
}
