package lite_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// namingTarget is a wake target whose engine names a backend in its reply, as a
// webhook may.
type namingTarget struct{ named string }

func (n *namingTarget) Key() string                               { return "webhook naming" }
func (n *namingTarget) Running(context.Context) (bool, error)     { return false, nil }
func (n *namingTarget) Sleep(context.Context, wake.Request) error { return nil }
func (n *namingTarget) Wake(context.Context, wake.Request) (wake.Result, error) {
	return wake.Result{Backend: n.named}, nil
}

// Regression (issue 30): a wake engine's reply could name any backend, and the proxy
// dialled it as if the operator had written it: a webhook could steer players'
// handshakes and Login Starts to a service on loopback. An engine-named backend
// passes the guard like a template's expansion: never loopback, an interface of the
// host or the proxy itself.
func TestEngineNamedBackendIsGuarded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	reached := countAccepts(t, ln, func(c net.Conn) { _ = c.Close() })
	target := &namingTarget{named: ln.Addr().String()}
	factory := func(wake.Spec) (wake.Target, error) { return target, nil }
	p := startProxy(t, wakeConfig(refusedAddr(t), "2s", "10m", refusedAddr(t)), proxyOpts{wakeTargets: factory})
	waitAsleep(t, p, target.Key())
	c := dialProxy(t, p.addr)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	c.send(mctest.LoginPreamble(765, "sleepy.example.com", "Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "starting") {
		t.Fatalf("player got %q, want the starting text", text)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the engine-named loopback service was dialled %d times", n)
	}
}

// Regression (issue 30, item 11): held logins appeared in no gauge. HeldLogins counts
// the logins held right now, and drops back when they are told the server is starting.
func TestHeldLoginsAreCounted(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.never = true
	p := wakeProxy(t, e, "2s", "10m", refusedAddr(t))
	waitAsleep(t, p, e.key)
	var clients []*client
	for range 3 {
		c := dialProxy(t, p.addr)
		c.send(mctest.LoginPreamble(765, "sleepy.example.com", "Steve"))
		clients = append(clients, c)
	}
	waitFor(t, "3 logins held", 5*time.Second, func() bool { return p.HeldLogins() == 3 })
	for _, c := range clients {
		if text := c.disconnectText(); !strings.Contains(text, "starting") {
			t.Fatalf("held player got %q", text)
		}
	}
	waitFor(t, "no login held", 5*time.Second, func() bool { return p.HeldLogins() == 0 })
}
