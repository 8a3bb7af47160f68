package strategy

import (
	"sync"
	"testing"
)

func TestLeastConnectionsHeldSessionsStayBalanced(t *testing.T) {
	tests := []struct {
		name     string
		backends int
		logins   int
	}{
		{"30 held sessions over 3 backends", 3, 30},
		{"7 held sessions over 2 backends", 2, 7},
		{"100 held sessions over 10 backends", 10, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs := addrs(tt.backends)
			m, _ := newTestManager(t, LeastConnections, bs...)
			firsts(m, "r", bs, tt.logins, true)
			lo, hi := int64(tt.logins/tt.backends), int64((tt.logins+tt.backends-1)/tt.backends)
			for _, s := range m.Snapshot() {
				if s.Active < lo || s.Active > hi {
					t.Fatalf("%s holds %d sessions, want between %d and %d", s.Addr, s.Active, lo, hi)
				}
			}
		})
	}
}

func TestLeastConnectionsDisconnectFreesSlot(t *testing.T) {
	bs := addrs(3)
	m, _ := newTestManager(t, LeastConnections, bs...)
	leases := map[string][]*Lease{}
	for range 6 {
		o := m.Order("r", bs, IntentLogin)
		leases[o[0]] = append(leases[o[0]], join(m, o[0]))
	}
	leases["b1"][0].Release()
	if got := m.Order("r", bs, IntentLogin)[0]; got != "b1" {
		t.Fatalf("after a session on b1 ended the next login went to %s, want b1", got)
	}
}

func TestLeastConnectionsTiesAreRandom(t *testing.T) {
	wantEvenFirsts(t, LeastConnections, 4, 4000, "with equal load ")
}

func TestLeastConnectionsStatusPingsNeverCount(t *testing.T) {
	bs := addrs(2)
	m, _ := newTestManager(t, LeastConnections, bs...)
	for range 50 {
		m.Order("r", bs, IntentStatus)
	}
	for _, s := range m.Snapshot() {
		if s.Active != 0 {
			t.Fatalf("%s has %d active after only status pings", s.Addr, s.Active)
		}
	}
}

func TestLeastConnectionsConcurrentLoginsCountExactly(t *testing.T) {
	bs := addrs(4)
	m, _ := newTestManager(t, LeastConnections, bs...)
	const logins = 200
	leases := make([]*Lease, logins)
	var wg sync.WaitGroup
	for i := range logins {
		wg.Go(func() {
			o := m.Order("r", bs, IntentLogin)
			leases[i] = join(m, o[0])
		})
	}
	wg.Wait()
	var total int64
	for _, s := range m.Snapshot() {
		total += s.Active
		// Order and Reserve are separate calls, so in the worst schedule
		// every Order runs before any Reserve and the random tie-break
		// alone spreads the burst; it must never pile up on one backend.
		if s.Active > logins/2 {
			t.Errorf("%s holds %d of %d concurrent logins", s.Addr, s.Active, logins)
		}
	}
	if total != logins {
		t.Fatalf("total active %d, want %d", total, logins)
	}
	for _, l := range leases {
		wg.Go(func() {
			l.Release()
			l.Release() // both sides closing must not count twice
		})
	}
	wg.Wait()
	for _, s := range m.Snapshot() {
		if s.Active != 0 {
			t.Fatalf("%s has %d active after every session ended, want 0", s.Addr, s.Active)
		}
	}
}
