package strategy

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

func passedOf(t *testing.T, m *Manager, bs []string, addr string) string {
	t.Helper()
	for _, v := range m.Explain("r", bs, IntentLogin) {
		if v.Addr == addr {
			return v.Passed
		}
	}
	t.Fatalf("%s not explained", addr)
	return ""
}

// Issue 22, defect 8: the balance view showed scores and penalties but not why a
// backend got nothing. Explain now says it in words.
func TestExplainSaysWhyABackendIsPassedOver(t *testing.T) {
	t.Run("failure share and recovery", func(t *testing.T) {
		bs := []string{"a", "b"}
		m, clk := newTestManager(t, P2C, bs...)
		serve(m, "a")
		serve(m, "b")
		m.ObserveDial("b", 0, nil)
		m.ObserveDial("b", 0, nil)
		m.ObserveStatus("b", Report{}, errRefused)
		if got := passedOf(t, m, bs, "b"); !strings.Contains(got, "failure share 0.33") {
			t.Fatalf("passed over: %q, want the failure share", got)
		}
		fail(m, "b", EjectFailures)
		clk.Advance(EjectMax)
		serve(m, "b")
		if got := passedOf(t, m, bs, "b"); !strings.Contains(got, "first player starts its slow start") || strings.Contains(got, "failure share") {
			t.Fatalf("recovered: %q, want its pending ramp and no failure share", got)
		}
		serve(m, "b")
		clk.Advance(30 * time.Second)
		if got := passedOf(t, m, bs, "b"); !strings.Contains(got, "slow start: 50% of its fair share") {
			t.Fatalf("ramping: %q", got)
		}
	})
	t.Run("busy and storm", func(t *testing.T) {
		bs := []string{"a"}
		m, _ := newTestManager(t, LeastConnections, bs...)
		serve(m, "a")
		for range MaxUnsettled + 1 {
			m.Reserve("a")
		}
		m.Order("r", bs, IntentLogin)
		got := passedOf(t, m, bs, "a")
		if !strings.Contains(got, "busy: 4 attempts in flight, limit 3") || !strings.Contains(got, "storm") {
			t.Fatalf("passed over: %q, want busy 4 of 3 and the storm", got)
		}
		if n := m.RouteSpills("r"); n != 1 {
			t.Fatalf("route spills %d, want 1", n)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		bs := []string{"a", "b"}
		m, _ := newTestManager(t, LeastLoaded, bs...)
		m.ObserveStatus("a", Report{Online: 40, Max: 500, HasPlayers: true}, nil)
		m.Reserve("a").Settle(0, ErrFull)
		if got := passedOf(t, m, bs, "a"); !strings.Contains(got, "turned a player away as full holding 40") {
			t.Fatalf("passed over: %q, want the refusal", got)
		}
		v := m.Explain("r", bs, IntentLogin)[0]
		if v.Load == nil || v.Load.Capacity != 40 || v.Load.CapacitySource != "refusals" || !v.Load.Full {
			t.Fatalf("load verdict %+v, want full at a capacity of 40 from refusals", v.Load)
		}
	})
}

// A storm logs one line per SpillLogEvery, not one per player, and each login's
// order is recorded at debug level.
func TestSpillLogIsRateLimitedAndOrdersTraced(t *testing.T) {
	var logs mctest.Logs
	clk := newClock()
	m := NewManager(Options{Seed: 1, Now: clk.Now, Log: logs.Logger(1)})
	bs := []string{"a", "b"}
	m.SetRoutes([]Route{{Key: "r", Strategy: RoundRobin, Backends: bs}})
	serve(m, "a")
	serve(m, "b")
	for _, addr := range bs {
		for range MaxUnsettled {
			m.Reserve(addr)
		}
	}
	for range 100 {
		m.Order("r", bs, IntentLogin)
		clk.Advance(100 * time.Millisecond) // 10s in all
	}
	m.Order("r", bs, IntentLogin)
	if n := logs.Count("login storm"); n != 2 {
		t.Fatalf("storm logged %d times over 10s of spills, want 2", n)
	}
	if n := logs.Count("login order"); n != 101 {
		t.Fatalf("login orders traced %d times, want 101", n)
	}
	if m.Spills() != 101 {
		t.Fatalf("spills %d, want 101", m.Spills())
	}
}
