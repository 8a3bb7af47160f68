package strategy

import (
	"context"
	"testing"
	"time"
)

// The probe loop's list of backends is kept between rounds; every change of the
// backend set must reach it: a templated backend seen by a login is probed at once,
// and a backend no route lists any more is not probed again.
func TestProbeTargetsFollowTheBackendSet(t *testing.T) {
	clk := newClock()
	p := &scriptProber{answer: func(string, int) (Report, error) { return Report{RTT: time.Millisecond}, nil }}
	m := NewManager(Options{Seed: 1, Now: clk.Now, Prober: p})
	hc := HealthCheck{Enabled: true, Interval: 10 * time.Second}
	m.SetRoutes([]Route{{Key: "r", Backends: []string{"a", "b"}, Health: hc}})
	ctx := context.Background()
	if n := m.ProbeDue(ctx); n != 2 {
		t.Fatalf("first round probed %d backends, want a and b", n)
	}
	m.Order("r", []string{"c"}, IntentLogin) // a template expanded to c
	if n := m.ProbeDue(ctx); n != 1 || p.count("c") != 1 {
		t.Fatalf("after c appeared: %d probed, c probed %d times; want c alone, once", n, p.count("c"))
	}
	m.SetRoutes([]Route{{Key: "r", Backends: []string{"a"}, Health: hc}})
	clk.Advance(time.Minute)
	m.ProbeDue(ctx)
	if p.count("a") != 2 || p.count("b") != 1 {
		t.Fatalf("after b left the route: a probed %d times, b %d; want 2 and 1", p.count("a"), p.count("b"))
	}
}
