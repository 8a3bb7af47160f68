package strategy

import (
	"slices"
	"testing"
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
