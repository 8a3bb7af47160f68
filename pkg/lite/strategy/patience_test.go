package strategy

import (
	"fmt"
	"testing"
	"time"
)

// Patience tells slow from dead by the rest of the fleet (issue 32, item 3).
func TestPatienceComparesWithTheFleet(t *testing.T) {
	const wait = 3 * time.Second
	answer := func(d time.Duration) func(*Manager, string) {
		return func(m *Manager, addr string) { m.Reserve(addr).Settle(d, nil) }
	}
	timeout := func(m *Manager, addr string) {
		m.Reserve(addr).Settle(0, fmt.Errorf("backend %s: %w", addr, ErrNoAnswer))
	}
	unheard := func(*Manager, string) {}
	// pending: an attempt reserved now, still in flight when the clock has moved on.
	pending := func(m *Manager, addr string) { m.Reserve(addr) }
	for _, tc := range []struct {
		name  string
		fleet []func(*Manager, string)
		want  time.Duration
	}{
		{"fresh route", []func(*Manager, string){unheard, unheard, unheard}, wait},
		{"fast fleet", []func(*Manager, string){answer(300 * time.Millisecond), answer(50 * time.Millisecond)}, wait},
		{"dark backend among fast ones", []func(*Manager, string){timeout, answer(300 * time.Millisecond), timeout}, wait},
		{"uniformly slow fleet", []func(*Manager, string){answer(3500 * time.Millisecond), answer(4 * time.Second)}, 7 * time.Second},
		{"one fast backend sets the pace", []func(*Manager, string){answer(3500 * time.Millisecond), answer(time.Second)}, wait},
		{"every backend late", []func(*Manager, string){timeout, timeout, timeout, timeout}, Unbounded},
		{"late ones and one untried", []func(*Manager, string){timeout, timeout, unheard}, wait},
		{"late ones and one whose first attempt is overdue", []func(*Manager, string){timeout, timeout, pending}, Unbounded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fleet := addrs(len(tc.fleet))
			m, clk := newTestManager(t, LeastConnections, fleet...)
			for i, f := range tc.fleet {
				f(m, fleet[i])
			}
			clk.Advance(wait + time.Second)
			if got := m.Patience(fleet, wait); got != tc.want {
				t.Errorf("Patience = %v, want %v", got, tc.want)
			}
		})
	}
}

// A late backend that answers again is the fleet's pace again: late is a
// state that its next answer ends.
func TestLateBackendAnsweringAgainSetsThePace(t *testing.T) {
	fleet := addrs(2)
	m, clk := newTestManager(t, P2C, fleet...)
	for _, addr := range fleet {
		m.Reserve(addr).Settle(0, ErrNoAnswer)
	}
	if got := m.Patience(fleet, time.Second); got != Unbounded {
		t.Fatalf("every backend late: Patience = %v, want Unbounded", got)
	}
	clk.Advance(time.Second)
	m.Reserve(fleet[1]).Settle(8*time.Second, nil)
	if got := m.Patience(fleet, time.Second); got != 16*time.Second {
		t.Errorf("after an 8s answer: Patience = %v, want 16s", got)
	}
}
