package strategy

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestLeaseCountsThePlayerFromTheFirstByte(t *testing.T) {
	m, _ := newTestManager(t, LeastConnections, "a")
	l := m.Reserve("a")
	if s := state(t, m, "a"); s.Active != 0 || s.Unsettled != 1 || s.Placed != 0 {
		t.Fatalf("reserved, unsettled: %+v, want 0 active, 1 unsettled, 0 placed", s)
	}
	l.Settle(3*time.Millisecond, nil)
	l.Settle(0, errRefused) // a second settle changes nothing
	if s := state(t, m, "a"); s.Active != 1 || s.Unsettled != 0 || s.Placed != 1 || s.FirstByte != 3*time.Millisecond || s.Health != HealthHealthy {
		t.Fatalf("settled: %+v, want 1 active, 0 unsettled, 1 placed, first byte 3ms, healthy", s)
	}
	l.Release()
	l.Release()
	if s := state(t, m, "a"); s.Active != 0 || s.Unsettled != 0 {
		t.Fatalf("released twice: %+v, want nothing counted", s)
	}
}

func TestLeaseReleasedOnEveryPathExactlyOnce(t *testing.T) {
	paths := map[string]func(*Lease){
		"abandoned":        func(l *Lease) { l.Release() },
		"failed":           func(l *Lease) { l.Settle(0, errRefused); l.Release() },
		"player left":      func(l *Lease) { l.Settle(0, context.Canceled); l.Release() },
		"joined then gone": func(l *Lease) { l.Settle(time.Millisecond, nil); l.Release(); l.Release() },
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			m, _ := newTestManager(t, LeastConnections, "a")
			var wg sync.WaitGroup
			for range 100 {
				wg.Go(func() {
					l := m.Reserve("a")
					var inner sync.WaitGroup
					// Two goroutines end the same lease, as session and relay may.
					inner.Go(func() { path(l) })
					inner.Go(func() { l.Release() })
					inner.Wait()
				})
			}
			wg.Wait()
			if s := state(t, m, "a"); s.Active != 0 || s.Unsettled != 0 {
				t.Fatalf("after 100 leases: %+v, want nothing counted", s)
			}
		})
	}
}

func TestLoginFailuresEjectLikeRefusedDials(t *testing.T) {
	m, _ := newTestManager(t, Sequential, "a", "b")
	for range EjectFailures - 1 {
		m.Reserve("a").Settle(0, fmt.Errorf("backend closed before its first byte: %w", errRefused))
	}
	// A passing status ping does not clear failed logins: it is players
	// that make a backend healthy.
	m.ObserveStatus("a", Report{RTT: time.Millisecond}, nil)
	m.Reserve("a").Settle(0, errRefused)
	if got := state(t, m, "a").Health; got != HealthEjected {
		t.Fatalf("health %q after %d failed logins, want ejected", got, EjectFailures)
	}
}

func TestProxyOwnFailuresSayNothingAboutTheBackend(t *testing.T) {
	m, _ := newTestManager(t, Sequential, "a", "b")
	full := fmt.Errorf("dial a: too many open files: %w", ErrNotBackend)
	for range 2 * EjectFailures {
		m.Reserve("a").Settle(0, full)
		m.ObserveDial("a", 0, full)
		m.Reserve("a").Settle(0, fmt.Errorf("client left: %w", context.Canceled))
	}
	if s := state(t, m, "a"); s.Health != HealthUnknown || s.Unsettled != 0 {
		t.Fatalf("after the proxy's own failures: %+v, want unknown, nothing in flight", s)
	}
}

func TestUnsettledAttemptsAreBounded(t *testing.T) {
	bs := []string{"a", "b", "c"}
	m, clk := newTestManager(t, Sequential, bs...)
	reason := func(addr string) Reason {
		t.Helper()
		for _, v := range m.Explain("r", bs, IntentLogin) {
			if v.Addr == addr {
				return v.Reason
			}
		}
		t.Fatalf("%s not explained", addr)
		return 0
	}
	// Never answered: up to MaxUnsettled while the attempts are young, as a burst onto
	// a fresh route sends them; one at a time once they stall unanswered.
	first := m.Reserve("a")
	if got := reason("a"); got != ReasonUnmeasured {
		t.Fatalf("new backend with one fresh attempt in flight: %s, want unmeasured", got)
	}
	clk.Advance(StallAfter + time.Millisecond)
	m.Reserve("c").Settle(time.Millisecond, nil) // the fleet outruns it
	if got := reason("a"); got != ReasonBusy {
		t.Fatalf("new backend with one attempt unanswered past StallAfter: %s, want busy", got)
	}
	if o := m.Order("r", bs, IntentLogin); o[0] != "b" {
		t.Fatalf("order %v, want the busy new backend after the others", o)
	}
	first.Settle(time.Millisecond, nil)
	defer first.Release()
	// Healthy: up to MaxUnsettled.
	var held []*Lease
	for range MaxUnsettled - 1 {
		held = append(held, m.Reserve("a"))
	}
	if got := reason("a"); got != ReasonHealthy {
		t.Fatalf("healthy backend with %d in flight: %s, want healthy", MaxUnsettled-1, got)
	}
	held = append(held, m.Reserve("a"))
	if got := reason("a"); got != ReasonBusy {
		t.Fatalf("healthy backend with %d in flight: %s, want busy", MaxUnsettled, got)
	}
	// One of them failed and nothing succeeded since: one at a time.
	held[0].Settle(0, errRefused)
	for _, l := range held[1:] {
		l.Release()
	}
	suspect := m.Reserve("a")
	if got := reason("a"); got != ReasonBusy {
		t.Fatalf("suspect backend with one attempt in flight: %s, want busy", got)
	}
	suspect.Settle(time.Millisecond, nil)
	suspect.Release()
	if got := reason("a"); got != ReasonHealthy {
		t.Fatalf("after a success: %s, want healthy", got)
	}
}

func TestRecoveredBackendIsOnProbation(t *testing.T) {
	m, clk := newTestManager(t, Sequential, "a", "b")
	fail(m, "a", EjectFailures)
	clk.Advance(EjectBase)
	serve(m, "a") // recovered
	clk.Advance(StableAfter / 2)
	fail(m, "a", 1)
	s := state(t, m, "a")
	if s.Health != HealthEjected {
		t.Fatalf("one failure on probation: health %q, want ejected again", s.Health)
	}
	if left, d := s.EjectedUntil.Sub(clk.Now()), EjectionDuration(2); left > d || left < d-d/10 {
		t.Fatalf("second ejection lasts %v, want the doubled %v", left, d)
	}
}

// placements places n players (kept connected) through a route in which
// dead refuses every attempt, the way the proxy does: down the order,
// settling each attempt. It returns where the players landed.
func placements(m *Manager, key string, bs []string, dead string, n int) map[string]int {
	got := map[string]int{}
	for range n {
		for _, addr := range m.Order(key, bs, IntentLogin) {
			l := m.Reserve(addr)
			if addr == dead {
				l.Settle(0, errRefused)
				continue
			}
			l.Settle(time.Millisecond, nil)
			got[addr]++
			break
		}
	}
	return got
}

// With one backend of three dead, every strategy shares the players
// between the two survivors as it would if the dead one were not in the
// route, while the dead one is being found out too: its turns do not all
// fall over to the backend listed after it.
func TestFairAfterAFailureEveryStrategy(t *testing.T) {
	const players, seeds = 9, 200
	for _, name := range Names() {
		t.Run(string(name), func(t *testing.T) {
			with, without := map[string]int{}, map[string]int{}
			for seed := range uint64(seeds) {
				m := NewManager(Options{Seed: seed + 1, Now: newClock().Now})
				m.SetRoutes([]Route{{Key: "dead", Strategy: name, Backends: []string{"a", "b", "c"}},
					{Key: "alive", Strategy: name, Backends: []string{"a", "c"}}})
				run := placements(m, "dead", []string{"a", "b", "c"}, "b", players)
				if name == RoundRobin || name == LeastConnections {
					if d := run["a"] - run["c"]; d < -1 || d > 1 {
						t.Fatalf("seed %d: %v, want the survivors within one of each other", seed+1, run)
					}
				}
				for k, v := range run {
					with[k] += v
				}
				m2 := NewManager(Options{Seed: seed + 1, Now: newClock().Now})
				m2.SetRoutes([]Route{{Key: "alive", Strategy: name, Backends: []string{"a", "c"}}})
				for k, v := range placements(m2, "alive", []string{"a", "c"}, "", players) {
					without[k] += v
				}
			}
			total := players * seeds
			for _, k := range []string{"a", "c"} {
				got, want := with[k]*1000/total, without[k]*1000/total
				if got-want > 50 || want-got > 50 {
					t.Errorf("%s gets %d‰ with b dead, %d‰ without b: want within 50‰ (%v vs %v)", k, got, want, with, without)
				}
			}
		})
	}
}
