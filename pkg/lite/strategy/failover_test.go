package strategy

import (
	"slices"
	"testing"
	"time"
)

// failoverCases are what the manager knows (setup) and how Failover must
// reorder the rest of an order after it.
var failoverCases = []struct {
	name  string
	setup func(m *Manager, clk advancer)
	rest  []string
	want  []string
}{
	{
		name: "one answered, one failed, one hanging",
		setup: func(m *Manager, clk advancer) {
			m.Reserve("b3").Settle(time.Millisecond, nil)
			m.Reserve("b1").Settle(0, errRefused)
			m.Reserve("b2") // never answered while b3 answered younger ones: hangs like the one that failed
			clk.Advance(StallAfter + time.Millisecond)
			m.Reserve("b3").Settle(time.Millisecond, nil)
		},
		rest: []string{"b0", "b1", "b2", "b3", "b4", "b5"},
		want: []string{"b3", "b0", "b4", "b5", "b1", "b2"},
	},
	{
		// Not having answered yet is no verdict: a burst's attempts are all this young.
		name: "an attempt in flight to a new backend, not yet stalled",
		setup: func(m *Manager, _ advancer) {
			m.Reserve("b1").Settle(0, errRefused)
			m.Reserve("b2")
		},
		rest: []string{"b1", "b2", "b0"},
		want: []string{"b2", "b0", "b1"},
	},
	{
		name: "an old answer is no better than no verdict",
		setup: func(m *Manager, clk advancer) {
			m.Reserve("b4").Settle(time.Millisecond, nil)
			clk.Advance(RecentAnswer)
			m.Reserve("b2").Settle(time.Millisecond, nil)
		},
		rest: []string{"b5", "b4", "b3", "b2"},
		want: []string{"b2", "b5", "b4", "b3"},
	},
	{
		name: "answered then failed",
		setup: func(m *Manager, _ advancer) {
			m.Reserve("b1").Settle(time.Millisecond, nil)
			m.Reserve("b1").Settle(0, errRefused)
		},
		rest: []string{"b1", "b0", "b2"},
		want: []string{"b0", "b2", "b1"},
	},
	{
		name: "a busy backend that answers stays first",
		setup: func(m *Manager, _ advancer) {
			m.Reserve("b2").Settle(time.Millisecond, nil)
			for range MaxUnsettled {
				m.Reserve("b2") // a login burst, not a hang
			}
		},
		rest: []string{"b0", "b1", "b2"},
		want: []string{"b2", "b0", "b1"},
	},
	{
		name: "an ejected backend that answered long ago goes last",
		setup: func(m *Manager, clk advancer) {
			m.Reserve("b0").Settle(time.Millisecond, nil)
			for range EjectFailures {
				m.Reserve("b0").Settle(0, errRefused)
			}
		},
		rest: []string{"b0", "b1"},
		want: []string{"b1", "b0"},
	},
	{
		name:  "nothing known keeps the strategy's order",
		setup: func(*Manager, advancer) {},
		rest:  []string{"b5", "b1", "b3", "b0"},
		want:  []string{"b5", "b1", "b3", "b0"},
	},
	{
		name: "unknown addresses (templated) count as untried",
		setup: func(m *Manager, _ advancer) {
			m.Reserve("b1").Settle(0, errRefused)
		},
		rest: []string{"b1", "10.0.0.7:25565"},
		want: []string{"10.0.0.7:25565", "b1"},
	},
}

func TestFailoverPutsRecentAnswersFirstAndHungAttemptsLast(t *testing.T) {
	for _, tc := range failoverCases {
		t.Run(tc.name, func(t *testing.T) {
			m, clk := newTestManager(t, Random, addrs(6)...)
			tc.setup(m, clk)
			got := slices.Clone(tc.rest)
			m.Failover(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Failover(%v) = %v, want %v", tc.rest, got, tc.want)
			}
		})
	}
}

// Failover must not move the strategy's first picks: two managers with the
// same seed order the same way whether or not failed logins re-ordered
// their tails in between.
func TestFailoverLeavesTheFirstPickToTheStrategy(t *testing.T) {
	plain, _ := newTestManager(t, Random, addrs(8)...)
	failing, _ := newTestManager(t, Random, addrs(8)...)
	for i := range 200 {
		a := plain.Order("r", addrs(8), IntentLogin)
		b := failing.Order("r", addrs(8), IntentLogin)
		if !slices.Equal(a, b) {
			t.Fatalf("login %d: order %v, with failovers before it %v", i, a, b)
		}
		// Every login on both succeeds on its first pick; on failing, the
		// failover path runs too, as if an earlier attempt had failed.
		plain.Reserve(a[0]).Settle(time.Millisecond, nil)
		l := failing.Reserve(b[0])
		failing.Failover(b[1:])
		l.Settle(time.Millisecond, nil)
	}
}

func TestFailoverAllocatesNothingForShortLists(t *testing.T) {
	m, _ := newTestManager(t, Random, addrs(6)...)
	m.Reserve("b3").Settle(time.Millisecond, nil)
	rest := addrs(6)
	allocs := testing.AllocsPerRun(100, func() { m.Failover(rest) })
	if allocs != 0 {
		t.Fatalf("Failover allocated %v times a call, want 0", allocs)
	}
}

type advancer interface{ Advance(time.Duration) }
