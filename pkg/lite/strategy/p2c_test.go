package strategy

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// p2cManager is a manager on a virtual clock with one p2c route; reports
// sets each backend's players online (of 100) as a fresh report.
func p2cManager(t *testing.T, cfg P2CConfig, backends ...string) (*Manager, *mctest.Clock) {
	t.Helper()
	clk := newClock()
	m := NewManager(Options{Seed: 42, Now: clk.Now})
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: backends, P2C: cfg}})
	return m, clk
}

func report(m *Manager, addr string, online int, motd string) {
	m.ObserveStatus(addr, Report{RTT: 20 * time.Millisecond, Online: online, Max: 100, HasPlayers: true, MOTD: motd}, nil)
}

func TestP2CFiltersBackendsWithoutRoom(t *testing.T) {
	tests := []struct {
		name    string
		online  map[string]int
		motd    map[string]string
		cfg     P2CConfig
		allowed []string // backends that may come first (the emptiest of them does)
	}{
		{"a full backend takes nobody while others have room",
			map[string]int{"a": 95, "b": 10, "c": 20}, nil, P2CConfig{}, []string{"b", "c"}},
		{"saturation is configurable",
			map[string]int{"a": 75, "b": 10, "c": 20}, nil, P2CConfig{Saturation: 0.7}, []string{"b", "c"}},
		{"a draining backend takes nobody",
			map[string]int{"a": 0, "b": 50, "c": 50}, map[string]string{"a": "§cMaintenance until 5pm"},
			P2CConfig{Drain: regexp.MustCompile("(?i)maintenance")}, []string{"b", "c"}},
		{"all saturated: widen to those below full",
			map[string]int{"a": 100, "b": 95, "c": 92}, nil, P2CConfig{}, []string{"b", "c"}},
		{"all full: widen to every backend",
			map[string]int{"a": 100, "b": 120, "c": 100}, nil, P2CConfig{}, []string{"a", "b", "c"}},
		{"all draining: widen to every backend",
			map[string]int{"a": 10, "b": 10, "c": 10}, map[string]string{"a": "maintenance", "b": "maintenance", "c": "maintenance"},
			P2CConfig{Drain: regexp.MustCompile("maintenance")}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs := []string{"a", "b", "c"}
			m, _ := p2cManager(t, tt.cfg, bs...)
			for _, b := range bs {
				report(m, b, tt.online[b], tt.motd[b])
			}
			got := firsts(m, "r", bs, 200, false)
			for b, n := range got {
				if !slices.Contains(tt.allowed, b) {
					t.Fatalf("%s came first %d times; only %v may: %v", b, n, tt.allowed, got)
				}
			}
		})
	}
}

func TestP2COrderIsTheBetterOfTwoThenTheRestByScore(t *testing.T) {
	bs := []string{"a", "b", "c", "d"}
	m, _ := p2cManager(t, P2CConfig{}, bs...)
	for i, b := range bs {
		report(m, b, 10*(i+1), "") // a emptiest, d fullest
	}
	for range 100 {
		o := m.Order("r", bs, IntentLogin)
		if !slices.Equal(slices.Sorted(slices.Values(o)), bs) {
			t.Fatalf("order %v is not a permutation of %v", o, bs)
		}
		// The pair is ordered (lower load first), and after it come the
		// other two, also by load.
		if o[0] > o[1] || o[2] > o[3] {
			t.Fatalf("order %v: the pair and the rest must each be by score", o)
		}
	}
}

func TestP2CSharesTiesBetweenEqualBackends(t *testing.T) {
	bs := []string{"a", "b"}
	m, _ := p2cManager(t, P2CConfig{}, bs...)
	for _, b := range bs {
		report(m, b, 30, "")
	}
	// Equal scores: the coin decides, so neither backend takes everyone.
	got := firsts(m, "r", bs, 400, false)
	if got["a"] < 150 || got["b"] < 150 {
		t.Fatalf("first choices %v, want a roughly even split", got)
	}
}

func TestP2CChargesPlacementsUntilTheNextReport(t *testing.T) {
	bs := []string{"a", "b"}
	m, clk := p2cManager(t, P2CConfig{Peers: 10}, bs...)
	report(m, "a", 0, "")
	report(m, "b", 20, "")
	// a looks emptier, but with ten replicas each placement there counts
	// ten times: after two, a (0+20) ties b (20), after three it is worse.
	for range 2 {
		if o := m.Order("r", bs, IntentLogin); o[0] != "a" {
			t.Fatalf("order %v, want a first while it is emptier", o)
		}
		join(m, "a")
	}
	join(m, "a")
	if o := m.Order("r", bs, IntentLogin); o[0] != "b" {
		t.Fatalf("order %v after charging three placements ten times each, want b first", o)
	}
	// The next report, whose exchange began after the three settled (it counts
	// them), resets the charge.
	clk.Advance(time.Second)
	report(m, "a", 3, "")
	if o := m.Order("r", bs, IntentLogin); o[0] != "a" {
		t.Fatalf("order %v after a fresh report of 3 players, want a first", o)
	}
}

func TestP2CSlowStartAfterReload(t *testing.T) {
	old := []string{"a", "b", "c", "d"}
	m, clk := p2cManager(t, P2CConfig{}, old...)
	for _, b := range old {
		report(m, b, 50, "")
	}
	bs := append(slices.Clone(old), "new")
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: bs}})
	report(m, "new", 0, "")
	if s := state(t, m, "new"); !s.WarmSince.Equal(clk.Now()) {
		t.Fatalf("new backend warm since %v, want the reload at %v", s.WarmSince, clk.Now())
	}
	if s := state(t, m, "a"); !s.WarmSince.IsZero() {
		t.Fatalf("kept backend warm since %v, want never", s.WarmSince)
	}
	// The empty new backend wins every pair it is in, so after the ramp how
	// often it comes first is how often it is sampled; during the ramp slow
	// start holds it to its ramp times its fair share (ramp.go).
	const n = 2000
	early := firsts(m, "r", bs, n, false)["new"]
	clk.Advance(DefaultSlowStart)
	late := firsts(m, "r", bs, n, false)["new"]
	// A tenth of its fifth at first: 2%. Sampled as one of two out of five: 40% settled.
	if early < n*1/100 || early > n*4/100 {
		t.Fatalf("new backend first in %d of %d orders at the start of its ramp, want about 2%%", early, n)
	}
	if late < n*35/100 || late > n*45/100 {
		t.Fatalf("new backend first in %d of %d orders after its ramp, want about 40%%", late, n)
	}
}

func TestP2CSlowStartAfterRecovery(t *testing.T) {
	m, clk := p2cManager(t, P2CConfig{}, "a", "b")
	fail(m, "a", EjectFailures)
	clk.Advance(time.Second)
	serve(m, "a")
	if s := state(t, m, "a"); !s.RampPending || !s.WarmSince.IsZero() || s.Health != HealthHealthy {
		t.Fatalf("recovered backend: %+v, want healthy and its ramp waiting for a player", s)
	}
	clk.Advance(time.Minute)
	serve(m, "a")
	if s := state(t, m, "a"); s.RampPending || !s.WarmSince.Equal(clk.Now()) {
		t.Fatalf("recovered backend after its first player: %+v, want warm since that player", s)
	}
}

func TestP2CRoutesProbeForReportsWithoutHealthChecks(t *testing.T) {
	clk := newClock()
	p := &scriptProber{answer: func(string, int) (Report, error) {
		return Report{RTT: time.Millisecond, Online: 1, Max: 10, HasPlayers: true}, nil
	}}
	m := NewManager(Options{Seed: 1, Now: clk.Now, Prober: p})
	m.SetRoutes([]Route{
		{Key: "p2c", Strategy: P2C, Backends: []string{"a"}, Health: HealthCheck{Interval: 5 * time.Second}},
		{Key: "rr", Strategy: RoundRobin, Backends: []string{"b"}},
	})
	ctx := context.Background()
	for range 12 {
		m.ProbeDue(ctx)
		clk.Advance(time.Second)
	}
	// Every 5s ±10% over 12s: at 0, ~5 and ~10.
	if got := p.count("a"); got != 3 {
		t.Fatalf("p2c backend probed %d times in 12s, want 3", got)
	}
	if got := p.count("b"); got != 0 {
		t.Fatalf("round-robin backend without health checks probed %d times, want 0", got)
	}
}

func TestP2CReloadKeepsInstanceAndAppliesSettings(t *testing.T) {
	bs := []string{"a", "b"}
	m, _ := p2cManager(t, P2CConfig{}, bs...)
	report(m, "a", 80, "")
	report(m, "b", 10, "")
	if got := firsts(m, "r", bs, 50, false); got["a"] != 0 {
		t.Fatalf("a at 80%% came first %d times below the default 90%% saturation against an emptier b", got["a"])
	}
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: bs, P2C: P2CConfig{Saturation: 0.05}}})
	// Both are now saturated, a more so: widened to below 1.0, b still wins
	// every pair; the point is that the new threshold took effect without
	// errors and b keeps its edge.
	if got := firsts(m, "r", bs, 50, false); got["b"] != 50 {
		t.Fatalf("after reload first choices %v, want b every time", got)
	}
}

func TestLowestLatencyCountsLeaderChanges(t *testing.T) {
	bs := []string{"a", "b"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	if _, _, ok := m.Leader("r"); !ok {
		t.Fatal("lowest-latency route has no leader")
	}
	if _, _, ok := m.Leader("missing"); ok {
		t.Fatal("unknown route has a leader")
	}
	m.ObserveStatus("a", Report{RTT: 20 * time.Millisecond}, nil)
	m.ObserveStatus("b", Report{RTT: 90 * time.Millisecond}, nil)
	m.Order("r", bs, IntentLogin)
	clk.Advance(LatencyCooldown)
	for range LatencyConfirmations + 2 {
		clk.Advance(LatencyRoundSpacing)
		m.ObserveStatus("a", Report{RTT: 200 * time.Millisecond}, nil)
		m.ObserveStatus("b", Report{RTT: 10 * time.Millisecond}, nil)
		m.Order("r", bs, IntentLogin)
	}
	if addr, changes, _ := m.Leader("r"); addr != "b" || changes != 1 {
		t.Fatalf("leader %s after %d changes, want b after 1", addr, changes)
	}
	m2, _ := newTestManager(t, P2C, bs...)
	if _, _, ok := m2.Leader("r"); ok {
		t.Fatal("p2c reports a leader")
	}
}

func TestPlayersSumsUsableFreshReports(t *testing.T) {
	bs := []string{"a", "b", "c", "d", "e"}
	clk := newClock()
	m := NewManager(Options{Seed: 1, Now: clk.Now})
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: bs, Capacity: map[string]int{"b": 40}}})
	m.ObserveStatus("e", Report{Online: 1000, Max: 1000, HasPlayers: true}, nil)
	clk.Advance(3 * DefaultStaleAfter) // e's report is now too old
	m.ObserveStatus("a", Report{Online: 5, Max: 20, HasPlayers: true}, nil)
	m.ObserveStatus("b", Report{Online: 7, Max: 500, HasPlayers: true}, nil)
	m.ObserveStatus("c", Report{Online: 9, Max: 20, HasPlayers: true}, nil)
	fail(m, "c", EjectFailures) // ejected: not counted
	m.ObserveStatus("d", Report{}, nil)
	online, maxPlayers, ok := m.Players("r", append(bs, "a"))
	if !ok || online != 12 || maxPlayers != 60 {
		t.Fatalf("Players = %d/%d, %v; want 12/60 (a, and b at its capacity of 40)", online, maxPlayers, ok)
	}
	if _, _, ok := m.Players("r", []string{"d"}); ok {
		t.Fatal("a backend without a players object counted")
	}
}

func TestAppendOrderReusesDst(t *testing.T) {
	bs := addrs(4)
	m, _ := p2cManager(t, P2CConfig{}, bs...)
	dst := make([]string, 0, 8)
	dst = append(dst, "keep")
	got := m.AppendOrder(dst, "r", bs, IntentLogin)
	if got[0] != "keep" || len(got) != 5 || &got[0] != &dst[:1][0] {
		t.Fatalf("AppendOrder = %v, want it appended to dst in place", got)
	}
	if got := m.AppendOrder(nil, "r", nil, IntentLogin); got != nil {
		t.Fatalf("AppendOrder without backends = %v, want dst unchanged", got)
	}
}

func TestAppendOrderDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	bs := addrs(10)
	for _, name := range Names() {
		m, _ := newTestManager(t, name, bs...)
		for i, b := range bs {
			report(m, b, 10*i, "")
		}
		dst := make([]string, 0, len(bs))
		m.AppendOrder(dst, "r", bs, IntentLogin) // warm the pool
		if n := testing.AllocsPerRun(200, func() { dst = m.AppendOrder(dst[:0], "r", bs, IntentLogin) }); n != 0 {
			t.Errorf("%s: %v allocations per AppendOrder, want 0", name, n)
		}
	}
}

// A tie goes to each of the pair with its share of their capacity: at equal
// load, nine tenths of the players of a 900/100 pair go to the 900 (a fair
// coin gave each half, and 32 replicas' first players overfilled every small
// backend).
func TestP2CTieGoesByCapacity(t *testing.T) {
	s := newP2C(Env{Seed: 7})
	ev := []p2cEval{{score: 20_000, weight: 900_000}, {score: 20_400, weight: 100_000}}
	big := 0
	for range 10_000 {
		if first, _ := s.pick(ev, 0); first == 0 {
			big++
		}
	}
	if big < 8_800 || big > 9_200 {
		t.Fatalf("the 900 went first in %d of 10000 ties, want about 9000", big)
	}
}
