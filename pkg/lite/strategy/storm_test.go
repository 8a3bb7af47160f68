package strategy

import (
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
	m.Reserve("hole") // never answered: one attempt at a time
	for _, addr := range bs[1:] {
		for range MaxUnsettled {
			m.Reserve(addr)
		}
	}
	if o := m.Order("r", bs, IntentLogin); o[len(o)-1] == "hole" {
		t.Fatalf("fresh attempt: order %v, want the new backend spilled onto like the others", o)
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
