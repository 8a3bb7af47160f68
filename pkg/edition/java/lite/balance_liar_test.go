package lite_test

import (
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 32, item 5: the liar world (a server that reports max 500 but holds 40,
// beside two honest ones) on sockets and in the simulator. The simulator used to
// kick every player it placed on the full server (160-352 turned away in the
// issue's run) where the sockets send them on (0): now both walk the order the same
// way, and their turned-away players agree within 10%.
func TestLiarWorldSimulatorAgreesWithSockets(t *testing.T) {
	const players, holds = 150, 40
	for _, name := range []strategy.Name{strategy.P2C, strategy.LeastLoaded} {
		t.Run(string(name), func(t *testing.T) {
			p, liarB := liarWorld(t, name, holds)
			waitReports(t, p, 3)
			turned := 0
			for i := range players {
				c := dialProxy(t, p.addr).Client
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				if err := joinEcho(c, "liar.example.com", fmt.Sprintf("p%d", i)); err != nil {
					turned++
				}
			}
			sim, err := plan.Run(plan.Options{Strategy: name, Backends: []string{"a", "b", "c"}, Count: players,
				Session: time.Hour, Arrival: 5 * time.Millisecond, HealthInterval: 100 * time.Millisecond,
				Capacity: map[string]int{"a": holds, "b": 500, "c": 500}, ReportMax: map[string]int{"a": 500}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: turned away %d on sockets (%d refusals), %d simulated (%d refusals)",
				name, turned, liarB.Refused(), sim.TurnedAway, sim.Refusals)
			if diff(turned, sim.TurnedAway) > players/10 {
				t.Errorf("turned away: sockets %d, simulator %d; want within 10%% of %d", turned, sim.TurnedAway, players)
			}
		})
	}
}

// liarWorld is a route of name over a server that reports max 500 but holds
// holds players, and two honest 500-slot ones, with reports every 100ms; it
// returns the proxy and the liar's backend.
func liarWorld(t *testing.T, name strategy.Name, holds int) (*proxy, *backend) {
	t.Helper()
	liar := newLoadServer(t, 500, "Lobby")
	liar.Close()
	liarB := newBackendWith(t, mctest.Options{Capacity: holds})
	liar.backend = liarB
	liar.SetStatusFunc(liar.report)
	others := []*loadServer{newLoadServer(t, 500, "Lobby"), newLoadServer(t, 500, "Lobby")}
	return startProxy(t, routeConfig(name, 100*time.Millisecond, addrs(liar, others[0], others[1])...), proxyOpts{seed: 6}), liarB
}
