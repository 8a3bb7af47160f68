package strategy

import (
	"slices"
	"testing"
	"time"
)

// Regression: when every usable backend had its attempts in flight at the
// limit, the order widened to all backends, ejected ones included, and
// least-loaded and lowest-latency put the dead one first (no players, last
// sample good). Widening now keeps the health ranks: busy ones, then the
// dead one last.
func TestStormWideningKeepsDeadBackendLast(t *testing.T) {
	for _, name := range Names() {
		t.Run(string(name), func(t *testing.T) {
			bs := []string{"dead", "a", "b", "c"}
			m, _ := newTestManager(t, name, bs...)
			for _, addr := range bs {
				serve(m, addr)
			}
			m.Reserve("dead").Settle(0, errRefused)
			fail(m, "dead", EjectFailures)
			if st := state(t, m, "dead"); st.Health != HealthEjected {
				t.Fatalf("dead backend is %s, want ejected", st.Health)
			}
			for _, addr := range bs[1:] {
				for range MaxUnsettled {
					m.Reserve(addr)
				}
			}
			before := m.Spills()
			for range 50 {
				o := m.Order("r", bs, IntentLogin)
				if o[len(o)-1] != "dead" {
					t.Fatalf("storm order %v: the ejected backend is not last", o)
				}
				m.Reserve(o[0]) // the storm goes on: every attempt stays in flight
			}
			if got := m.Spills() - before; got != 50 {
				t.Fatalf("spills counted %d, want 50", got)
			}
		})
	}
}

// A backend that answers 100 logins a second, 300ms after each, has 30 in
// flight when all is well: it is busy only past BusyHeadroom times that.
func TestBusySizedFromAnswerRateAndFirstByte(t *testing.T) {
	m, clk := newTestManager(t, LeastConnections, "slow")
	for range 150 { // 1.5s at 100/s
		clk.Advance(10 * time.Millisecond)
		m.Reserve("slow").Settle(300*time.Millisecond, nil)
	}
	var held []*Lease
	for range 59 {
		held = append(held, m.Reserve("slow"))
	}
	if why := m.Explain("r", []string{"slow"}, IntentLogin)[0].Reason; why != ReasonHealthy {
		t.Fatalf("59 in flight at 100/s x 300ms: %s, want healthy (limit 60)", why)
	}
	held = append(held, m.Reserve("slow"))
	if why := m.Explain("r", []string{"slow"}, IntentLogin)[0].Reason; why != ReasonBusy {
		t.Fatalf("60 in flight: %s, want busy", why)
	}
	// It goes quiet: after 2 windows without an answer the allowance is gone.
	clk.Advance(2 * paceWindow)
	for _, l := range held[MaxUnsettled:] {
		l.Release()
	}
	if why := m.Explain("r", []string{"slow"}, IntentLogin)[0].Reason; why != ReasonBusy {
		t.Fatalf("%d in flight, silent for 2s: %s, want busy", MaxUnsettled, why)
	}
}

// A backend whose attempts stay unanswered past StallAfter (a black hole that has
// not failed yet) is not spilled onto like the slow ones that answer.
func TestStalledBackendRanksWithTheDoubtful(t *testing.T) {
	bs := []string{"hole", "a", "b"}
	m, clk := newTestManager(t, LeastConnections, bs...)
	serve(m, "a")
	serve(m, "b")
	m.Reserve("hole") // never answered, but its attempt is young: no verdict yet
	for _, addr := range bs[1:] {
		for range MaxUnsettled {
			m.Reserve(addr)
		}
	}
	if o := m.Order("r", bs, IntentLogin); o[len(o)-1] == "hole" {
		t.Fatalf("fresh attempt: order %v, want the new backend placed like the others", o)
	}
	clk.Advance(StallAfter + time.Millisecond)
	for _, addr := range bs[1:] { // the slow ones answer one attempt each and take another
		m.Reserve(addr).Settle(50*time.Millisecond, nil)
	}
	for range 20 {
		if o := m.Order("r", bs, IntentLogin); o[len(o)-1] != "hole" {
			t.Fatalf("stalled: order %v, want the stalled backend last", o)
		}
	}
}

// Regression (issue 32's flake of TestConcurrentLoginsKeepCountsExact): onto a fresh
// route every backend is new, and a backend that had not answered yet got one
// attempt at a time, so the first to answer took the next logins alone while the
// others' answers were on their way. Not having answered yet is no verdict.
func TestBurstOntoAFreshRouteIsNotTakenByTheFirstToAnswer(t *testing.T) {
	bs := []string{"a", "b", "c", "d"}
	m, _ := newTestManager(t, LeastConnections, bs...)
	got, leases := map[string]int{}, map[string]*Lease{}
	pick := func() {
		o := m.Order("r", bs, IntentLogin)
		got[o[0]]++
		leases[o[0]] = m.Reserve(o[0])
	}
	for range len(bs) {
		pick()
	}
	leases["a"].Settle(time.Millisecond, nil) // a answers first; the others' answers are on their way
	for range len(bs) {
		pick()
	}
	for _, addr := range bs {
		if got[addr] != 2 {
			t.Fatalf("8 logins placed %v, want 2 on each backend", got)
		}
	}
}

// A proxy short of CPU answers every backend late alike: attempts that wait past
// StallAfter while no backend answers anything younger stall none of them, so a
// burst on a loaded host is not ordered as if its backends had gone dark, and a
// backend that did fail stays behind them. Once one answers younger attempts, the
// others are behind the fleet.
func TestSlowProxyStallsNoBackend(t *testing.T) {
	bs := []string{"a", "b", "c", "e"}
	m, clk := newTestManager(t, LeastConnections, bs...)
	for _, addr := range bs {
		serve(m, addr)
	}
	m.Reserve("e").Settle(0, errRefused)
	m.Reserve("e") // suspect: one attempt at a time
	for _, addr := range bs[:3] {
		for range MaxUnsettled {
			m.Reserve(addr)
		}
	}
	clk.Advance(10 * StallAfter)
	if o := m.Order("r", bs, IntentLogin); o[len(o)-1] != "e" {
		t.Fatalf("order %v after %v without any answer, want the suspect backend last", o, 10*StallAfter)
	}
	m.Reserve("b").Settle(time.Millisecond, nil) // b answers one reserved now: a and c are behind
	if o := m.Order("r", bs, IntentLogin); !slices.Equal(o, []string{"b", "a", "c", "e"}) {
		t.Fatalf("order %v, want b, then the stalled and the suspect ones in config order", o)
	}
}
