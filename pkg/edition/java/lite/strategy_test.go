package lite_test

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// countingDialer is a real net.Dialer that counts attempts per address.
type countingDialer struct {
	mu    sync.Mutex
	dials map[string]int
}

func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	if d.dials == nil {
		d.dials = map[string]int{}
	}
	d.dials[addr]++
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *countingDialer) count(addr string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dials[addr]
}

// strategyConfig is one route of strategy name over backends, the status cache off.
func strategyConfig(name string, backends ...string) string {
	return oneRoute("*", backends...).with("strategy: "+name, "cachePingTTL: -1").withTop("connectionTimeout: 1s").String()
}

func threeBackends(t *testing.T) (a, b, c *backend) {
	return newBackend(t, statusJSON("a", 0, 100)), newBackend(t, statusJSON("b", 0, 100)), newBackend(t, statusJSON("c", 0, 100))
}

func TestRoundRobinExactAndNotMovedByPings(t *testing.T) {
	a, b, c := threeBackends(t)
	p := startProxy(t, strategyConfig("round-robin", a.addr, b.addr, c.addr))
	for i := 0; i < 30; i++ {
		cl := dialProxy(t, p.addr)
		cl.login("rr.example.com")
		_ = cl.Close()
		// Status pings in between must not shift the rotation.
		if _, err := dialProxy(t, p.addr).status(765, "rr.example.com"); err != nil {
			t.Fatal(err)
		}
	}
	for _, be := range []*backend{a, b, c} {
		if n := be.Logins(); n != 10 {
			t.Fatalf("backend %s got %d logins, want exactly 10 (a=%d b=%d c=%d)", be.addr, n, a.Logins(), b.Logins(), c.Logins())
		}
	}
}

// activeOn reads the strategy manager's active session count for addr.
func activeOn(p *proxy, addr string) int64 {
	for _, s := range p.Manager().Snapshot() {
		if s.Addr == addr {
			return s.Active
		}
	}
	return 0
}

func TestLeastConnectionsBalancesHeldSessionsAndFreesOnDisconnect(t *testing.T) {
	a, b, c := threeBackends(t)
	p := startProxy(t, strategyConfig("least-connections", a.addr, b.addr, c.addr))
	var held []*client
	for i := 0; i < 9; i++ {
		cl := dialProxy(t, p.addr)
		cl.login("lc.example.com")
		held = append(held, cl)
	}
	for _, be := range []*backend{a, b, c} {
		if n := be.Logins(); n != 3 {
			t.Fatalf("backend %s got %d of 9 held sessions, want 3", be.addr, n)
		}
	}
	// Status pings never count as players.
	for i := 0; i < 5; i++ {
		if _, err := dialProxy(t, p.addr).status(765, "lc.example.com"); err != nil {
			t.Fatal(err)
		}
	}
	// Two players leave backend a; here the backend side ends the sessions (the client
	// side is covered at the end): either way each slot is freed exactly once.
	if n := a.EndSessions(2); n != 2 { // backend side ends two sessions
		t.Fatalf("ended %d sessions on a, want 2", n)
	}
	waitFor(t, "slots on a to be released", 5*time.Second, func() bool { return activeOn(p, a.addr) == 1 })
	for i := 0; i < 2; i++ {
		cl := dialProxy(t, p.addr)
		cl.login("lc.example.com")
		held = append(held, cl)
	}
	if n := a.Logins(); n != 5 {
		t.Fatalf("freed backend got %d logins in total, want 5 (3 + the 2 freed slots)", n)
	}
	for _, cl := range held {
		_ = cl.Close()
	}
	for _, be := range []*backend{a, b, c} {
		waitFor(t, "counts back to zero", 5*time.Second, func() bool { return activeOn(p, be.addr) == 0 })
	}
}

func TestConcurrentLoginsKeepCountsExact(t *testing.T) {
	const n = 200
	backends := []*backend{newBackend(t, ""), newBackend(t, ""), newBackend(t, ""), newBackend(t, "")}
	p := startProxy(t, oneRoute("*", backends[0].addr, backends[1].addr, backends[2].addr, backends[3].addr).
		with("strategy: least-connections").String())

	var wg sync.WaitGroup
	clients := make([]*client, n)
	var failed atomic.Int64
	for i := 0; i < n; i++ {
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
			if err != nil {
				failed.Add(1)
				return
			}
			cl := &client{t: t, Client: mctest.NewClient(c)}
			cl.br = cl.R
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			hs := handshake(765, "burst.example.com", 2)
			if _, err := c.Write(append(hs, loginStart("p")...)); err != nil {
				failed.Add(1)
				return
			}
			if _, err := io.ReadFull(cl.br, make([]byte, len(hs))); err != nil {
				failed.Add(1)
				return
			}
			clients[i] = cl
		})
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		t.Fatalf("%d of %d logins failed", f, n)
	}
	var total int64
	for _, be := range backends {
		got := activeOn(p, be.addr)
		total += got
		// Reservations happen at pick time, so a burst cannot pile onto one backend.
		if got < n/4-10 || got > n/4+10 {
			t.Errorf("backend %s holds %d of %d sessions, want about %d", be.addr, got, n, n/4)
		}
	}
	if total != n {
		t.Fatalf("manager counts %d active sessions, want %d", total, n)
	}
	for _, cl := range clients {
		_ = cl.Close()
	}
	for _, be := range backends {
		waitFor(t, "counts to return to zero", 10*time.Second, func() bool { return activeOn(p, be.addr) == 0 })
	}
}

func TestDeadFirstBackendStopsCostingDials(t *testing.T) {
	good := newBackend(t, "")
	dead := refusedAddr(t)
	dialer := &countingDialer{}
	p := startProxy(t, oneRoute("*", dead, good.addr).withTop("connectionTimeout: 1s").String(), proxyOpts{dialer: dialer})
	for i := 0; i < 20; i++ {
		cl := dialProxy(t, p.addr)
		cl.login("x.example.com")
		_ = cl.Close()
	}
	if n := good.Logins(); n != 20 {
		t.Fatalf("good backend got %d of 20 logins", n)
	}
	// Passive health: after EjectFailures consecutive failures the dead backend is
	// ejected and players stop paying for its dial.
	if got := dialer.count(dead); got > strategy.EjectFailures {
		t.Fatalf("dead backend was dialed %d times for 20 players, want at most %d", got, strategy.EjectFailures)
	}
}

func TestReloadAddedBackendGetsPlayersUnderEveryStrategy(t *testing.T) {
	for _, name := range strategy.Names() {
		t.Run(string(name), func(t *testing.T) {
			a, b, c := threeBackends(t)
			p := startProxy(t, oneRoute("*", a.addr, b.addr).with("strategy: "+string(name)).String())
			var held []*client
			for i := 0; i < 6; i++ {
				cl := dialProxy(t, p.addr)
				cl.login("x.example.com")
				held = append(held, cl)
			}
			if err := p.reload(oneRoute("*", a.addr, b.addr, c.addr).with("strategy: " + string(name)).String()); err != nil {
				t.Fatal(err)
			}
			// Sequential keeps config order by design: the new backend is last and takes
			// players only on failover. Every other strategy must reach it quickly.
			if name == strategy.Sequential {
				a.kill()
				b.kill()
			}
			// A load-reading strategy counts a backend it has no status report of yet as
			// half full (strategy.LoadNeutral), so c loses every pair until the probe the
			// reload starts at once has answered; how soon that is depends on the machine.
			// What follows is about the players after it.
			waitFor(t, "the new backend's first status report", 5*time.Second, func() bool {
				vs := p.Manager().Explain("*", []string{c.addr}, strategy.IntentLogin)
				return len(vs) == 1 && (vs[0].Load == nil || vs[0].Load.Source != strategy.LoadNeutral)
			})
			for i := 0; i < 60 && c.Logins() == 0; i++ {
				cl := dialProxy(t, p.addr)
				cl.send(handshake(765, "x.example.com", 2), loginStart("p"))
				_, _, _ = cl.frame()
				held = append(held, cl)
			}
			if c.Logins() == 0 {
				t.Fatalf("backend added by reload got no player in 60 connections")
			}
			for _, cl := range held {
				_ = cl.Close()
			}
		})
	}
}
