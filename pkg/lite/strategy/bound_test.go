package strategy

import (
	"fmt"
	"testing"
	"time"
)

// TestUnlistedBackendsAreBoundedLRU is the spray: 20,000 unique hosts on a
// template route each expand to a new address. The manager tracks at most
// MaxUnlistedBackends of them, forgets the least recently used first, and keeps
// listed backends, ones with players and recently used ones.
func TestUnlistedBackendsAreBoundedLRU(t *testing.T) {
	m, clk := newTestManager(t, RoundRobin, "static")
	m.Order("r", []string{"busy.svc"}, IntentLogin)
	lease := m.Reserve("busy.svc") // a player: never forgotten
	defer lease.Release()
	for i := range 20000 {
		clk.Advance(time.Millisecond)
		m.Order("r", []string{fmt.Sprintf("pod-%d.svc", i)}, IntentLogin)
		if i%1000 == 0 {
			m.Order("r", []string{"hot.svc"}, IntentLogin) // used again and again
		}
		// Every address, not a sample: reading the count is cheap, a Snapshot of
		// thousands of backends is not (it dominated this test under -race).
		m.mu.RLock()
		n := len(m.backends)
		m.mu.RUnlock()
		if n > MaxUnlistedBackends+1 {
			t.Fatalf("after %d addresses the manager tracks %d backends, bound %d", i+1, n, MaxUnlistedBackends)
		}
	}
	seen := map[string]bool{}
	for _, s := range m.Snapshot() {
		seen[s.Addr] = true
	}
	for _, want := range []string{"static", "busy.svc", "hot.svc", "pod-19999.svc"} {
		if !seen[want] {
			t.Errorf("%s was forgotten", want)
		}
	}
	if seen["pod-0.svc"] {
		t.Error("the least recently used address survived the spray")
	}
}
