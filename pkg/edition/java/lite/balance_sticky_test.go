package lite_test

import (
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 32, item 11: under sticky a player who reconnects lands on the backend of
// their previous session (0-29% under every other strategy but sequential).
func TestStickyPlayersReturnToTheirBackend(t *testing.T) {
	const players = 200
	var bs []*backend
	var addrs []string
	for range 4 {
		b := newBackend(t, "")
		bs, addrs = append(bs, b), append(addrs, b.addr)
	}
	p := startProxy(t, oneRoute("*", addrs...).with("strategy: "+string(strategy.Sticky)).quotasOff().String())
	// landed logs player i in, stays until leave is called, and says where.
	landed := func(i int) (int, func()) {
		before := make([]int64, len(bs))
		for k, b := range bs {
			before[k] = b.Logins()
		}
		c := dialProxy(t, p.addr).Client
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if err := echoed(c, stickyLogin(i)); err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
		for k, b := range bs {
			if b.Logins() > before[k] {
				return k, func() { _ = c.Close() }
			}
		}
		t.Fatalf("player %d landed nowhere", i)
		return -1, nil
	}
	home := make([]int, players)
	leave := make([]func(), players)
	for i := range players {
		home[i], leave[i] = landed(i)
	}
	back := 0
	held := func() (n int64) {
		for _, a := range addrs {
			n += activeOn(p, a)
		}
		return n
	}
	for i := range players {
		leave[i]()
		// A player comes back after their session ended, not during it.
		waitFor(t, "the session to end", 5*time.Second, func() bool { return held() == players-1 })
		var got int
		got, leave[i] = landed(i)
		if got == home[i] {
			back++
		}
	}
	t.Logf("%d of %d reconnects returned to their backend", back, players)
	if back*100 < 95*players {
		t.Errorf("%d of %d reconnects returned to their backend, want at least 95%%", back, players)
	}
	stickySimulatorAgrees(t, players, back)
}

// stickySimulatorAgrees runs the simulator's version, its players coming back
// after as many others arrived (their sessions of 60-180 s over by then, most
// of the others' not), and wants its returns home within 10% of the sockets'.
func stickySimulatorAgrees(t *testing.T, players, back int) {
	t.Helper()
	sim, err := plan.Run(plan.Options{Strategy: strategy.Sticky, Backends: []string{"a", "b", "c", "d"},
		Count: 2 * players, Population: players, Session: 2 * time.Minute, Arrival: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulated: %d of %d returns home", sim.Home, sim.Returns)
	if sim.Returns != players || diff(sim.Home, back) > players/10 {
		t.Errorf("the simulator sends %d of %d returns home, the sockets %d of %d: want them within 10%%",
			sim.Home, sim.Returns, back, players)
	}
}

// stickyLogin is player i's login preamble: its own name and UUID.
func stickyLogin(i int) []byte {
	payload := wire.AppendString(nil, fmt.Sprintf("player%d", i))
	id := [16]byte{0: byte(i), 1: byte(i >> 8), 15: 0x5a}
	frame := wire.AppendFrame(nil, 0x00, append(payload, id[:]...))
	return append(mctest.Handshake(765, "sticky.example.com", wire.IntentLogin), frame...)
}
