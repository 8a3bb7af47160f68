package lite_test

import (
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 32, item 3, scaled by 1/10: four healthy backends that all answer a login
// after 350 ms (3.5 s), behind a first-response timeout of 300 ms (3 s) and a read
// timeout of 3 s (the client's 30 s). On main every player walked all four backends'
// timeouts and was refused after 1.2 s (12 s): slow was taken for dead. When the whole
// fleet is late, late is its normal, and the proxy waits for it within the client's
// own deadline. The 800 ms (8 s) fleet must be served too.
func TestUniformlySlowFleetServesEveryPlayer(t *testing.T) {
	const (
		players = 40
		frt     = 300 * time.Millisecond
		read    = 3 * time.Second
	)
	for _, tc := range []struct {
		name  strategy.Name
		delay time.Duration
	}{
		{strategy.LeastConnections, 350 * time.Millisecond},
		{strategy.P2C, 350 * time.Millisecond},
		{strategy.RoundRobin, 800 * time.Millisecond},
	} {
		t.Run(fmt.Sprintf("%s/%v", tc.name, tc.delay), func(t *testing.T) {
			var addrs []string
			for range 4 {
				addrs = append(addrs, newBackendWith(t, mctest.Options{LoginDelay: tc.delay}).addr)
			}
			p := startProxy(t, oneRoute("slow.example.com", addrs...).with("strategy: "+string(tc.name), "cachePingTTL: -1").
				quotasOff().withTop("connectionTimeout: 1s", "readTimeout: "+read.String()).
				withLite("firstResponseTimeout: "+frt.String()).String(), proxyOpts{seed: 32})
			conns := make([]*mctest.Client, players)
			for i := range conns {
				conns[i] = dialProxy(t, p.addr).Client
				_ = conns[i].SetDeadline(time.Now().Add(2 * read))
			}
			took, errs := joinAll(conns, "slow.example.com")
			var served int
			var slowest time.Duration
			for i, err := range errs {
				if err != nil {
					continue
				}
				served, slowest = served+1, max(slowest, took[i])
			}
			t.Logf("%s, fleet answering after %v: %d of %d players served, slowest join %v", tc.name, tc.delay, served, players, slowest)
			if served != players {
				t.Errorf("%d of %d players refused, want none: the fleet is slow, not dead", players-served, players)
			}
			if want := simulatedSlowFleet(t, tc.name, tc.delay, players, frt, read); diff(served, want) > players/10 {
				t.Errorf("the simulator predicts %d served, the sockets %d: want them within 10%%", want, served)
			}
		})
	}
}

// simulatedSlowFleet is what `gate lite plan` predicts for the same fleet: the
// players it places.
func simulatedSlowFleet(t *testing.T, name strategy.Name, delay time.Duration, players int, frt, read time.Duration) int {
	t.Helper()
	four := []string{"a", "b", "c", "d"}
	lat, server := map[string]time.Duration{}, map[string]time.Duration{}
	for _, b := range four {
		lat[b], server[b] = time.Millisecond, delay
	}
	r, err := plan.Run(plan.Options{Strategy: name, Backends: four, Count: players, Session: time.Hour,
		Arrival: time.Millisecond, Latency: lat, World: plan.NoiseWorld{Server: server}, FirstResponse: frt, Budget: read})
	if err != nil {
		t.Fatal(err)
	}
	return r.Placed
}

func diff(a, b int) int { return max(a-b, b-a) }
