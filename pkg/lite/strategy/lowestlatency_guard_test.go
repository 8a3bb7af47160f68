package strategy

import "testing"

// Issue 32, item 10: lowest-latency respects capacity like the load-reading
// strategies: the fastest backend, once at the route's saturation, goes behind
// backends with room, and gets players again once it has room.
func TestLowestLatencyFastestBackendTakesNoPlayersWhenFull(t *testing.T) {
	bs := []string{"slow", "fast"}
	m, _ := newTestManager(t, LowestLatency, bs...)
	status := func(fastOnline int) {
		m.ObserveStatus("slow", Report{RTT: 60 * ms, Online: 10, Max: 100, HasPlayers: true}, nil)
		m.ObserveStatus("fast", Report{RTT: 10 * ms, Online: fastOnline, Max: 100, HasPlayers: true}, nil)
	}
	status(50)
	if got := firsts(m, "r", bs, 10, false); got["fast"] != 10 {
		t.Fatalf("with room on the fastest, placements %v, want all 10 there", got)
	}
	status(95)
	if got := firsts(m, "r", bs, 10, false); got["slow"] != 10 {
		t.Fatalf("the fastest at 95%% of its capacity: placements %v, want all 10 on the one with room", got)
	}
	// Its own placements since the report count: 85 reported, 5 placed = 90%.
	status(85)
	got := firsts(m, "r", bs, 10, true)
	if got["fast"] != 5 || got["slow"] != 5 {
		t.Fatalf("the fastest at 85%% of its capacity: placements %v, want 5 there (to 90%%) and then the others", got)
	}
}

// A backend whose capacity nobody knows is never held back by the guard.
func TestLowestLatencyGuardLeavesUnknownCapacityAlone(t *testing.T) {
	bs := []string{"slow", "fast"}
	m, _ := newTestManager(t, LowestLatency, bs...)
	measure(m, "slow", 60*ms)
	measure(m, "fast", 10*ms)
	if got := firsts(m, "r", bs, 300, true); got["fast"] != 300 {
		t.Fatalf("placements %v, want all 300 on the fastest (no capacity known)", got)
	}
}

// Issue 32, item 2: a backend that takes logins and answers none (gone dark at
// the start of a storm) looks no emptier with each: its attempts in flight count
// as load for least-loaded, p2c and lowest-latency's sharing, as for
// least-connections. (On sockets, least-loaded sent 77-97 of a 300/s storm's
// players to such a backend before, 31-36 after.)
func TestAttemptsInFlightCountAsLoad(t *testing.T) {
	for _, name := range []Name{LeastLoaded, LowestLatency} {
		bs := []string{"dark", "b", "c"}
		m, _ := newTestManager(t, name, bs...)
		for _, addr := range bs {
			m.ObserveStatus(addr, Report{RTT: 10 * ms, Online: 10, Max: 100, HasPlayers: true}, nil)
		}
		m.Reserve("dark")
		m.Reserve("dark") // two attempts in flight, unanswered
		got := firsts(m, "r", bs, 40, false)
		if got["dark"] != 0 {
			t.Errorf("%s: the backend with two unanswered attempts came first in %d of 40 orders, want none (%v)", name, got["dark"], got)
		}
	}
}
