package lite_test

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/logging"
)

// noiseConfig logs one session in every.
func noiseConfig(b, every string) string {
	return oneRoute("*", b).quotasOff().withLite("sessionLogEvery: " + every).String()
}

// TestHugeHostCannotInflateLogLines: a 7,990-byte host (the case) costs a
// log line of bounded size, and its NUL bytes are escaped.
func TestHugeHostCannotInflateLogLines(t *testing.T) {
	b := newBackend(t, "")
	var log mctest.Logs
	p := startProxy(t, noiseConfig(b.addr, "1"),
		proxyOpts{log: log.Logger(0)})
	host := strings.Repeat("x", 7990) + "\x00FML3\x00"
	c := dialProxy(t, p.addr)
	c.send(handshake(765, host, wire.IntentLogin), loginStart("Steve"))
	b.next(t)
	_ = c.Close()
	waitFor(t, "session ended line", 5*time.Second, func() bool { return len(log.Find("session ended")) == 1 })
	line := log.Find("session ended")[0]
	if len(line) > 600 || !strings.Contains(line, logging.Clip(strings.Repeat("x", 7990))) {
		t.Fatalf("session line of %d bytes: %s", len(line), line)
	}
}

// TestSessionLogEvery: 0 turns the per-session line off, N samples one session in N.
func TestSessionLogEvery(t *testing.T) {
	for _, c := range []struct {
		every      string
		sessions   int
		wantLogged int
	}{{"0", 4, 0}, {"2", 4, 2}, {"1", 3, 3}} {
		t.Run("every "+c.every, func(t *testing.T) {
			b := newBackend(t, "")
			var log mctest.Logs
			rec := &recorder{}
			p := startProxy(t, noiseConfig(b.addr, c.every),
				proxyOpts{obs: rec, log: log.Logger(0)})
			for range c.sessions {
				cl := dialProxy(t, p.addr)
				cl.login("mc.example.com")
				_ = cl.Close()
			}
			waitFor(t, "sessions closed", 5*time.Second, func() bool { return len(rec.closed()) == c.sessions })
			if got := len(log.Find("session ended")); got != c.wantLogged {
				t.Fatalf("%d session lines, want %d", got, c.wantLogged)
			}
		})
	}
}

// TestAnsweredPingWithoutPongIsNotRejected: a client that reads the status and leaves
// without a Ping was answered; it is not also a client-gone rejection.
func TestAnsweredPingWithoutPongIsNotRejected(t *testing.T) {
	b := newBackend(t, statusJSON("x", 1, 10))
	rec := &recorder{}
	p := startProxy(t, noiseConfig(b.addr, "1"), proxyOpts{obs: rec})
	for range 3 {
		c := dialProxy(t, p.addr)
		c.send(handshake(765, "mc.example.com", wire.IntentStatus), wire.AppendStatusRequest(nil))
		if id, _, err := c.frame(); err != nil || id != 0 {
			t.Fatalf("status response: id %d err %v", id, err)
		}
		_ = c.Close()
	}
	waitFor(t, "3 closed", 5*time.Second, func() bool { return len(rec.closed()) == 3 })
	for _, evs := range rec.closed() {
		if got := kinds(evs); got != "accepted,routed,status,closed" {
			t.Fatalf("events %s, want accepted,routed,status,closed", got)
		}
	}
}
