package discovery_test

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// coalesced is a Merger on a fake clock whose applies are counted.
type coalesced struct {
	m       *discovery.Merger
	clk     *mctest.TimerClock
	logs    *mctest.Logs
	applied []*config.Config
}

func newCoalesced(t *testing.T) *coalesced {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte("config:\n  lite:\n    enabled: true\n    discovery:\n      docker: {enabled: true}\n"), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &coalesced{clk: mctest.NewTimerClock(time.Time{}), logs: &mctest.Logs{}}
	c.m = discovery.NewMerger(discovery.MergerOptions{Log: c.logs.Logger(0), Now: c.clk.Now, AfterFunc: c.clk.AfterFunc,
		Apply: func(cfg *config.Config) error { c.applied = append(c.applied, cfg); return nil }})
	if err := c.m.SetFile(cfg); err != nil {
		t.Fatal(err)
	}
	return c
}

// lobby is the route of a container whose backend is the n-th address.
func lobby(n int) []discovery.Route {
	return []discovery.Route{{Origin: "docker lobby", Hosts: []string{"lobby.test"}, KeyPrefix: "gate.", Container: "lobby",
		Backends: []discovery.Backend{{Addr: "10.9.0." + string(rune('0'+n)) + ":25565"}}}}
}

// servedBackend is the lobby route's backend in the config last applied.
func (c *coalesced) servedBackend(t *testing.T) string {
	t.Helper()
	routes := c.applied[len(c.applied)-1].Lite.Routes
	if len(routes) != 1 {
		t.Fatalf("applied %d routes", len(routes))
	}
	return strings.Join(routes[0].Backend, ",")
}

// A container crash-looping makes its source republish many times a second;
// each apply recompiles every route, so changes within DefaultCoalesce of the
// last apply wait for the window's end and are applied once, the latest set.
func TestBurstOfChangesIsAppliedOnceAfterTheWindow(t *testing.T) {
	c := newCoalesced(t)
	c.m.Replace("docker", lobby(1)) // after a quiet time: at once
	if len(c.applied) != 2 || c.servedBackend(t) != "10.9.0.1:25565" {
		t.Fatalf("first change: %d applies", len(c.applied))
	}
	for n := 2; n <= 9; n++ {
		c.clk.Advance(20 * time.Millisecond)
		c.m.Replace("docker", lobby(n))
	}
	if len(c.applied) != 2 || c.clk.Pending() != 1 {
		t.Fatalf("within the window: %d applies, %d timers; want 2 and 1", len(c.applied), c.clk.Pending())
	}
	if got := c.m.Merged().Lite.Routes[0].Backend[0]; got != "10.9.0.1:25565" {
		t.Fatalf("Merged during the window = %s, want the config in force", got)
	}
	c.clk.Advance(discovery.DefaultCoalesce - 8*20*time.Millisecond - time.Millisecond)
	if len(c.applied) != 2 {
		t.Fatalf("%d applies before the window ended", len(c.applied))
	}
	c.clk.Advance(time.Millisecond)
	if len(c.applied) != 3 || c.servedBackend(t) != "10.9.0.9:25565" {
		t.Fatalf("at the window's end: %d applies serving %s, want 3 serving the last set", len(c.applied), c.servedBackend(t))
	}
	if n := c.logs.Count("discovered routes applied"); n != 2 {
		t.Fatalf("%d apply lines, want 2", n)
	}
	// Quiet for a window: the next change applies at once again.
	c.clk.Advance(time.Second)
	c.m.Replace("docker", lobby(1))
	if len(c.applied) != 4 || c.clk.Pending() != 0 {
		t.Fatalf("after a quiet window: %d applies, %d timers", len(c.applied), c.clk.Pending())
	}
}

// Close, at shutdown, cancels an apply waiting for its window and leaves no
// timer behind; a change after it applies at once.
func TestCloseCancelsTheWaitingApply(t *testing.T) {
	c := newCoalesced(t)
	c.m.Replace("docker", lobby(1))
	c.m.Replace("docker", lobby(2))
	c.m.Close()
	c.clk.Advance(time.Second)
	if len(c.applied) != 2 || c.servedBackend(t) != "10.9.0.1:25565" || c.clk.Pending() != 0 {
		t.Fatalf("after Close: %d applies, %d timers", len(c.applied), c.clk.Pending())
	}
	c.m.Replace("docker", lobby(3))
	if len(c.applied) != 3 || c.servedBackend(t) != "10.9.0.3:25565" {
		t.Fatalf("a change after Close: %d applies", len(c.applied))
	}
}

// A set published again with one route changed parses only that route: the
// others keep their decoded values (their fallback is the same one).
func TestUnchangedRoutesAreNotDecodedAgain(t *testing.T) {
	c := newCoalesced(t)
	set := fleet(3)
	c.m.Replace("docker", set)
	before := c.m.Merged().Lite.Routes
	set = fleet(3)
	set[1].Backends = nil
	c.clk.Advance(time.Second)
	c.m.Replace("docker", set)
	after := c.m.Merged().Lite.Routes
	if len(c.applied) != 3 || before[0].Fallback != after[0].Fallback || before[2].Fallback != after[2].Fallback {
		t.Fatalf("%d applies; unchanged routes decoded again", len(c.applied))
	}
	if before[1].Fallback == after[1].Fallback || len(after[1].Backend) != 0 {
		t.Fatal("the changed route kept its old decoding")
	}
}
