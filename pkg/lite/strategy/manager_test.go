package strategy

import (
	"slices"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

func TestReloadKeepsRemainingBackendsAndDropsTheRest(t *testing.T) {
	m, _ := newTestManager(t, LeastConnections, "keep", "gone")
	lease := join(m, "keep")
	defer lease.Release()
	m.ObserveStatus("keep", Report{RTT: 5 * time.Millisecond}, nil)
	fail(m, "keep", EjectFailures)
	m.ObserveDial("gone", 5*time.Millisecond, nil)

	m.SetRoutes([]Route{{Key: "r", Strategy: LeastConnections, Backends: []string{"keep", "new"}}})
	var got []string
	for _, s := range m.Snapshot() {
		got = append(got, s.Addr)
	}
	if want := []string{"keep", "new"}; !slices.Equal(got, want) {
		t.Fatalf("backends after reload %v, want %v", got, want)
	}
	s := state(t, m, "keep")
	if s.Active != 1 || !s.HasLatency || s.Health != HealthEjected {
		t.Fatalf("kept backend lost state: %+v", s)
	}
	if s := state(t, m, "new"); s.Health != HealthUnknown || s.Active != 0 || s.HasLatency {
		t.Fatalf("new backend starts with state %+v, want fresh", s)
	}
}

func TestReloadKeepsBackendWithPlayersUntilIdle(t *testing.T) {
	m, clk := newTestManager(t, Sequential, "a", "b")
	lease := join(m, "b")
	m.SetRoutes([]Route{{Key: "r", Backends: []string{"a"}}})
	if s := state(t, m, "b"); s.Active != 1 {
		t.Fatalf("removed backend with a player shows %d active, want 1", s.Active)
	}
	lease.Release()
	clk.Advance(dynamicIdle)
	m.Order("r", []string{"a", "templated"}, IntentLogin) // creating state sweeps
	for _, s := range m.Snapshot() {
		if s.Addr == "b" {
			t.Fatal("removed backend still known after its last player left and it idled")
		}
	}
}

func TestReloadKeepsRouteStrategyState(t *testing.T) {
	bs := addrs(3)
	m, _ := newTestManager(t, RoundRobin, bs...)
	before := m.Order("r", bs, IntentLogin)
	m.SetRoutes([]Route{{Key: "r", Strategy: RoundRobin, Backends: bs}})
	after := m.Order("r", bs, IntentLogin)
	if want := append(slices.Clone(before[1:]), before[0]); !slices.Equal(after, want) {
		t.Fatalf("order after reload %v, want the rotation to continue: %v", after, want)
	}
}

func TestBackendAddedByReloadGetsPlayers(t *testing.T) {
	for _, name := range Names() {
		t.Run(string(name), func(t *testing.T) {
			old := []string{"a", "b"}
			m, _ := newTestManager(t, name, old...)
			for _, b := range old {
				m.ObserveStatus(b, Report{RTT: 20 * time.Millisecond}, nil)
			}
			firsts(m, "r", old, 20, true)
			// Sequential only ever sends players down its list, so the
			// new backend goes first there; elsewhere it is appended.
			bs := append(slices.Clone(old), "new")
			if name == Sequential {
				bs = append([]string{"new"}, old...)
			}
			m.SetRoutes([]Route{{Key: "r", Strategy: name, Backends: bs}})
			bound := 10
			if name == P2C {
				// p2c ramps a new backend up over a minute from a tenth of
				// its fair chance, and this clock stands still: the bound is
				// the simulator's p99 target instead.
				bound = 60
				for _, b := range bs {
					m.ObserveStatus(b, Report{Online: int(state(t, m, b).Active), Max: 100, HasPlayers: true}, nil)
				}
			}
			if got := firsts(m, "r", bs, bound, true); got["new"] == 0 {
				t.Fatalf("new backend got no player in %d logins: %v", bound, got)
			}
		})
	}
}

func TestManagersAreIsolated(t *testing.T) {
	bs := addrs(3)
	a, _ := newTestManager(t, LeastConnections, bs...)
	b, _ := newTestManager(t, LeastConnections, bs...)
	join(a, "b0")
	fail(a, "b1", EjectFailures)
	a.ObserveDial("b2", time.Millisecond, nil)
	for _, s := range b.Snapshot() {
		if s.Active != 0 || s.Health != HealthUnknown || s.HasLatency {
			t.Fatalf("manager b sees state from manager a: %+v", s)
		}
	}
}

func TestTemplatedBackendsAreCreatedAndExpire(t *testing.T) {
	m, clk := newTestManager(t, RoundRobin, "static")
	if got := m.Order("r", []string{"pod-1.svc"}, IntentLogin); !slices.Equal(got, []string{"pod-1.svc"}) {
		t.Fatalf("Order = %v", got)
	}
	if s := state(t, m, "pod-1.svc"); s.Health != HealthUnknown {
		t.Fatalf("templated backend state %+v", s)
	}
	clk.Advance(dynamicIdle)
	m.Order("r", []string{"pod-2.svc"}, IntentLogin)
	var got []string
	for _, s := range m.Snapshot() {
		got = append(got, s.Addr)
	}
	if want := []string{"pod-2.svc", "static"}; !slices.Equal(got, want) {
		t.Fatalf("backends %v, want the idle templated one forgotten: %v", got, want)
	}
}

func TestOrderEdgeCases(t *testing.T) {
	m, _ := newTestManager(t, Random, "a", "b")
	if got := m.Order("r", nil, IntentLogin); got == nil || len(got) != 0 {
		t.Fatalf("Order with no backends = %#v, want an empty slice", got)
	}
	in := []string{"a", "a", "b"}
	got := m.Order("r", in, IntentLogin)
	slices.Sort(got)
	if !slices.Equal(got, in) {
		t.Fatalf("Order with a duplicate backend = %v, want every entry kept", got)
	}
}

// brokenStrategy returns an order with a repeated index.
type brokenStrategy struct{}

func (brokenStrategy) Inputs() Inputs { return InputLatency | InputReport }

func (brokenStrategy) Order(cands []Candidate, _ Intent, order []int) {
	for i := range order {
		order[i] = 0
	}
}

func TestFaultyCustomStrategyFallsBackToConfigOrder(t *testing.T) {
	m := NewManager(Options{Seed: 1, Strategies: map[Name]Factory{"broken": func(Env) Strategy { return brokenStrategy{} }}})
	bs := []string{"a", "b", "c"}
	m.SetRoutes([]Route{{Key: "r", Strategy: "broken", Backends: bs}})
	if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, bs) {
		t.Fatalf("Order = %v, want config order %v", got, bs)
	}
}

func TestUnknownStrategyFallsBackToSequential(t *testing.T) {
	var logs mctest.Logs
	m := NewManager(Options{Seed: 1, Log: logs.Logger(1)})
	bs := []string{"a", "b"}
	m.SetRoutes([]Route{{Key: "r", Strategy: "round_robin", Backends: bs}})
	for range 3 {
		if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, bs) {
			t.Fatalf("Order = %v, want sequential %v", got, bs)
		}
	}
	if logs.Count("falls back to sequential") != 1 {
		t.Fatalf("want one error line for the unknown strategy, got %v", logs.Find(""))
	}
}

func TestLeaseReleaseIsIdempotent(t *testing.T) {
	m, _ := newTestManager(t, LeastConnections, "a")
	l1, l2 := join(m, "a"), join(m, "a")
	l1.Release()
	l1.Release()
	if got := state(t, m, "a").Active; got != 1 {
		t.Fatalf("active %d after one lease released twice, want 1", got)
	}
	l2.Release()
	var nilLease *Lease
	nilLease.Release()
	if got := state(t, m, "a").Active; got != 0 {
		t.Fatalf("active %d, want 0", got)
	}
}
