package strategy

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

// demotedTail checks that Order's tail is exactly the backends Explain calls
// ineligible, in config order: the two read one rule.
func demotedTail(t *testing.T, m *Manager, backends []string) []Verdict {
	t.Helper()
	vs := m.Explain("r", backends, IntentLogin)
	var demoted []string
	for _, v := range vs {
		if !v.Eligible() {
			demoted = append(demoted, v.Addr)
		}
	}
	o := m.Order("r", backends, IntentStatus)
	if tail := o[len(o)-len(demoted):]; !slices.Equal(tail, demoted) {
		t.Fatalf("order %v ends with %v, explain demotes %v", o, tail, demoted)
	}
	return vs
}

func TestExplainReasonsOnManagerClock(t *testing.T) {
	m, clk := newTestManager(t, RoundRobin, "a", "b", "c", "d")
	serve(m, "a")
	fail(m, "b", EjectFailures)
	backends := []string{"a", "b", "c", "d", "tmpl-x"}
	m.Explain("r", backends, IntentLogin)
	if slices.ContainsFunc(m.Snapshot(), func(s BackendState) bool { return s.Addr == "tmpl-x" }) {
		t.Fatal("Explain created state for an unknown backend")
	}
	vs := m.Explain("r", backends, IntentLogin)
	demotedTail(t, m, backends)
	want := []Reason{ReasonHealthy, ReasonEjected, ReasonUnmeasured, ReasonUnmeasured, ReasonNew}
	for i, v := range vs {
		if v.Addr != backends[i] || v.Reason != want[i] || v.Usable != want[i].Usable() || v.Panic {
			t.Fatalf("verdict %d = %+v, want %s, no panic", i, v, want[i])
		}
	}
	until := vs[1].State.EjectedUntil
	if !vs[1].Known || vs[1].State.Health != HealthEjected || !until.After(clk.Now()) || until.After(clk.Now().Add(EjectBase)) {
		t.Fatalf("ejected verdict = %+v, want an ejection ending within %s of the manager clock %s", vs[1], EjectBase, clk.Now())
	}
	if vs[4].Known {
		t.Fatalf("unknown backend reported known: %+v", vs[4])
	}

	clk.Advance(EjectBase) // no prober: the ejection simply ends on the manager's clock
	vs = demotedTail(t, m, backends[:4])
	if vs[1].Reason != ReasonUnmeasured || !vs[1].Usable {
		t.Fatalf("after the ejection: %+v, want usable, unmeasured", vs[1])
	}
}

func TestExplainPanicMode(t *testing.T) {
	m, _ := newTestManager(t, Sequential, "a", "b", "c")
	fail(m, "a", EjectFailures)
	fail(m, "b", EjectFailures)
	vs := demotedTail(t, m, []string{"a", "b", "c"})
	for _, v := range vs {
		if !v.Panic || !v.Eligible() {
			t.Fatalf("verdict %+v: want panic mode, every backend eligible", v)
		}
	}
	if vs[0].Usable || vs[0].Reason != ReasonEjected || !vs[2].Usable {
		t.Fatalf("verdicts = %+v: panic must not hide the reasons", vs)
	}
}

func TestExplainAwaitingProbe(t *testing.T) {
	clk := newClock()
	m := NewManager(Options{Seed: 42, Now: clk.Now})
	m.SetRoutes([]Route{{Key: "r", Backends: []string{"a", "b", "c"}}})
	m.probing.Store(true) // as while Run's probe loop is active
	fail(m, "a", EjectFailures)
	clk.Advance(EjectBase)
	vs := demotedTail(t, m, []string{"a", "b", "c"})
	if vs[0].Reason != ReasonAwaitingProbe || vs[0].Usable || vs[0].State.Health != HealthEjected {
		t.Fatalf("verdict = %+v, want awaiting its probe, not usable", vs[0])
	}
}

func TestReasonStrings(t *testing.T) {
	for r := ReasonNew; r <= ReasonDown; r++ {
		if r.String() == "invalid" {
			t.Fatalf("reason %d has no name", r)
		}
	}
}

func TestExplainScoresEveryScoringStrategy(t *testing.T) {
	bs := []string{"a", "b"}
	for _, name := range Names() {
		t.Run(string(name), func(t *testing.T) {
			m, _ := newTestManager(t, name, bs...)
			m.ObserveStatus("a", Report{RTT: 20 * time.Millisecond, Online: 50, Max: 100, HasPlayers: true}, nil)
			m.ObserveStatus("b", Report{RTT: 40 * time.Millisecond, Online: 10, Max: 100, HasPlayers: true}, nil)
			vs := m.Explain("r", bs, IntentLogin)
			scoring := ScoreUnit(name) != ""
			for _, v := range vs {
				if v.HasScore != scoring {
					t.Fatalf("%s: HasScore %v, want %v (unit %q)", v.Addr, v.HasScore, scoring, ScoreUnit(name))
				}
				if name.ReadsLoad() != (v.Load != nil) {
					t.Fatalf("%s: load verdict %+v for a strategy that reads load: %v", v.Addr, v.Load, name.ReadsLoad())
				}
			}
			switch name {
			case LowestLatency:
				if vs[0].Score != 20 || vs[1].Score != 40 {
					t.Fatalf("scores %v / %v, want the latencies 20 and 40", vs[0].Score, vs[1].Score)
				}
			case P2C:
				// 20ms + 250ms x 0.51 and 40ms + 250ms x 0.11: the load each
				// would have with the player.
				if vs[0].Score != 147.5 || vs[1].Score != 67.5 {
					t.Fatalf("scores %v / %v, want 147.5 and 67.5", vs[0].Score, vs[1].Score)
				}
			case LeastLoaded, WeightedRandom:
				if vs[0].Score != 0.5 || vs[1].Score != 0.1 || vs[0].Load.Source != LoadReport || vs[0].Load.CapacitySource != "reported" {
					t.Fatalf("verdicts %+v / %+v, want loads 0.5 and 0.1 from reports", vs[0].Load, vs[1].Load)
				}
			}
		})
	}
}

func TestExplainShowsSaturationDrainAndRamp(t *testing.T) {
	m, clk := newTestManager(t, P2C, "full", "ok")
	m.SetRoutes([]Route{{Key: "r", Strategy: P2C, Backends: []string{"full", "ok", "new"},
		P2C: P2CConfig{Drain: regexp.MustCompile("maintenance")}}})
	m.ObserveStatus("full", Report{RTT: ms, Online: 95, Max: 100, HasPlayers: true}, nil)
	m.ObserveStatus("ok", Report{RTT: ms, Online: 10, Max: 100, HasPlayers: true, MOTD: "maintenance"}, nil)
	clk.Advance(15 * time.Second)
	vs := m.Explain("r", []string{"full", "ok", "new"}, IntentLogin)
	if l := vs[0].Load; l == nil || !l.Saturated || l.Full {
		t.Fatalf("full: %+v, want saturated, not full", l)
	}
	if l := vs[1].Load; l == nil || !l.Draining {
		t.Fatalf("ok: %+v, want draining", l)
	}
	if l := vs[2].Load; l == nil || l.Ramp != 25 || l.Source != LoadNeutral {
		t.Fatalf("new: %+v, want a 25%% ramp 15s into a 60s slow start, neutral load", l)
	}
	clk.Advance(time.Minute)
	if l := m.Explain("r", []string{"full"}, IntentLogin)[0].Load; !l.Stale {
		t.Fatalf("a 75s old report: %+v, want stale", l)
	}
}

func TestDecisionShowsChallengerAndHold(t *testing.T) {
	bs := []string{"a", "b"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	measure(m, "a", 100*ms)
	m.Order("r", bs, IntentLogin)
	measure(m, "a", 100*ms)
	measure(m, "b", 50*ms)
	m.Order("r", bs, IntentLogin)
	d, ok := m.Decision("r")
	if !ok || d.Best != "a" || d.Challenger != "b" || d.Confirmations != 1 || d.Needed != LatencyConfirmations || d.Hold != HoldUnstable {
		t.Fatalf("decision %+v, want a holding against b (1 of 3, candidate unstable)", d)
	}
	for range 2 {
		clk.Advance(LatencyRoundSpacing)
		measure(m, "a", 100*ms)
		measure(m, "b", 50*ms)
		m.Order("r", bs, IntentLogin)
	}
	d, _ = m.Decision("r")
	if d.Best != "b" || d.Changes[ChangeConfirmed] != 1 || d.LastSwitch.IsZero() {
		t.Fatalf("decision %+v, want b confirmed", d)
	}
	if _, ok := m.Decision("nope"); ok {
		t.Fatal("Decision of an unknown route is ok")
	}
}
