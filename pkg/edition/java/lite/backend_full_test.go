package lite_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// fullBackend answers every login with the Login Disconnect text a full server sends.
func fullBackend(t *testing.T, text string) string {
	t.Helper()
	b := mctest.NewBackend(t, mctest.Options{Script: func(c *net.TCPConn) {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 4096)); err != nil {
			return
		}
		_, _ = c.Write(wire.AppendLoginDisconnect(nil, []byte(text)))
	}})
	return b.Addr()
}

func fullConfig(backends ...string) string {
	return oneRoute("*.example.com", backends...).quotasOff().String()
}

// Regression: a backend whose first answer was "server full" counted as a served
// session (the first byte decided "joined"), so health and the strategies saw a
// healthy backend that had refused every player.
func TestBackendFullDisconnectIsNotAServedSession(t *testing.T) {
	texts := map[string]string{
		"vanilla":          `{"translate":"multiplayer.disconnect.server_full"}`,
		"paper":            `{"text":"The server is full!"}`,
		"this proxy, full": `{"text":"This proxy is full right now. Please try again in a moment."}`,
		"this proxy, busy": `{"text":"The server is handling too many connections. Try again in a few seconds."}`,
	}
	for name, text := range texts {
		t.Run(name+": the player sees the refusal", func(t *testing.T) {
			full := fullBackend(t, text)
			p := startProxy(t, fullConfig(full))
			refusedN(t, p, strategy.EjectFailures, text)
			if h := backendHealth(t, p, full); h != strategy.HealthEjected {
				t.Fatalf("backend that refused %d players is %q, want ejected", strategy.EjectFailures, h)
			}
		})
	}
	t.Run("the next backend serves", func(t *testing.T) {
		full := fullBackend(t, texts["vanilla"])
		good := newBackend(t, "")
		p := startProxy(t, fullConfig(full, good.addr))
		c := dialProxy(t, p.addr)
		c.login("play.example.com")
		good.next(t)
	})
	// Issue 32: any Disconnect as a first answer sends the player on (balance_refusal_test.go);
	// one that every backend sends reaches the player, and blames no backend.
	t.Run("another Disconnect everywhere is the backends' answer", func(t *testing.T) {
		other := `{"text":"You are banned."}`
		b, b2 := fullBackend(t, other), fullBackend(t, other)
		p := startProxy(t, fullConfig(b, b2))
		refusedN(t, p, strategy.EjectFailures, other)
		if h := backendHealth(t, p, b); h == strategy.HealthEjected || strings.Contains(h, "down") {
			t.Fatalf("a backend that answered is %q", h)
		}
	})
}

// refusedN logs n players in, one after another, and wants each to see text.
func refusedN(t *testing.T, p *proxy, n int, text string) {
	t.Helper()
	for range n {
		c := dialProxy(t, p.addr)
		c.send(mctest.LoginPreamble(765, "play.example.com", "Steve"))
		if got := c.disconnectText(); got != text {
			t.Fatalf("player got %q, want the backend's %q", got, text)
		}
		_ = c.Close()
	}
}
