package strategy

import (
	"testing"
	"time"
)

// Issue 32, items 1 and 8: under churn every backend a reload added is still
// ramping (slow start is 60 s), so most login orders start with a ramping
// backend that has no credit left, and the order moves the next one that has a
// credit to the front. On main that one did not pay: it kept its credit and
// took every login its peers had no credit for (here b0 116 of 200, max/fair
// 2.9, as p2c's 4.24 in the issue). Now each pays for coming first, and with
// every backend ramping alike they share the logins evenly.
func TestRampingBackendsPayForComingFirst(t *testing.T) {
	ramping := addrs(4)
	m, clk := newTestManager(t, P2C, "elsewhere")
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: ramping}}) // a reload: they ramp
	run := func(bs []string, n int) map[string]int {
		first := map[string]int{}
		for range n {
			clk.Advance(10 * time.Millisecond)
			addr := m.Order("r", bs, IntentLogin)[0]
			first[addr]++
			m.Reserve(addr).Settle(time.Millisecond, nil)
		}
		return first
	}
	run(ramping, 50) // their credits are spent
	all := append(append([]string(nil), ramping...), "fresh")
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: all}})
	first := run(all, 200)
	t.Logf("first in 200 login orders: %v", first)
	for addr, n := range first {
		if n > 60 { // fair is 40
			t.Errorf("%s came first in %d of 200 orders, want near a fair 40 (max/fair <= 1.5)", addr, n)
		}
	}
}

// A backend removed and listed again while it still holds players was never
// out: it does not start a slow start over (HAProxy ramps only a server that
// comes back from DOWN).
func TestReAddThatKeptItsPlayersDoesNotRampAgain(t *testing.T) {
	m, _ := newTestManager(t, P2C, "a", "b")
	lease := m.Reserve("b")
	lease.Settle(time.Millisecond, nil)
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: []string{"a"}}})
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: []string{"a", "b"}}})
	for _, s := range m.Snapshot() {
		if s.Addr == "b" && !s.WarmSince.IsZero() {
			t.Errorf("b kept its player through the reloads but ramps again since %v", s.WarmSince)
		}
	}
	lease.Release()
}
