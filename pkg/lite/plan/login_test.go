package plan

import (
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// slowFleet is the sockets' slow-fleet world (balance_slowfleet_test.go): four
// backends whose logins answer after server, a first-response wait of 300ms,
// a 3s budget, players arriving together.
func slowFleet(name strategy.Name, server time.Duration) Options {
	return Options{Strategy: name, Backends: four, Count: 40, Session: time.Hour, Arrival: time.Millisecond,
		Latency: each(four, time.Millisecond), World: NoiseWorld{Server: each(four, server)},
		FirstResponse: 300 * time.Millisecond, Budget: 3 * time.Second}
}

// Issue 32, item 5: the simulator waits for a first answer as the proxy does
// (Manager.Patience). A fleet that is uniformly later than the first-response
// wait is served (the sockets serve 40 of 40; the first player walks every
// backend's timeout before the fleet is known late); one later than the
// player's whole budget serves no one.
func TestSimulatedFirstResponseFollowsPatience(t *testing.T) {
	for _, tc := range []struct {
		name          strategy.Name
		server        time.Duration
		least, most   int
		wantFailedMin int
	}{
		{strategy.LeastConnections, 350 * time.Millisecond, 39, 40, 4},
		{strategy.P2C, 350 * time.Millisecond, 39, 40, 4},
		{strategy.RoundRobin, 800 * time.Millisecond, 39, 40, 4},
		{strategy.LeastConnections, 4 * time.Second, 0, 0, 40},
	} {
		r, err := Run(slowFleet(tc.name, tc.server))
		if err != nil {
			t.Fatal(err)
		}
		if r.Placed < tc.least || r.Placed > tc.most || r.FailedDials < tc.wantFailedMin {
			t.Errorf("%s, fleet answering after %v: %d placed, %d late attempts; want %d-%d placed, at least %d late",
				tc.name, tc.server, r.Placed, r.FailedDials, tc.least, tc.most, tc.wantFailedMin)
		}
	}
}

// A backend later than the first-response wait while the rest of the fleet
// answers in time is given up on, and its players go to the others.
func TestSimulatedLateBackendAmongFastOnesFailsOver(t *testing.T) {
	o := slowFleet(strategy.RoundRobin, time.Millisecond)
	o.World.Server["d"] = 400 * time.Millisecond
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Placed != o.Count || r.Backends[3].Players != 0 {
		t.Fatalf("placed %d of %d, %d on the late backend; want all placed, none on it", r.Placed, o.Count, r.Backends[3].Players)
	}
}

// liar is the world of issue 32's hidden case: backend a holds 100 players
// and reports a max of 500, beside three honest 200-slot backends.
func liar(name strategy.Name, custom bool) Options {
	o := world()
	o.Strategy, o.Capacity, o.ReportMax = name, map[string]int{"a": 100, "b": 200, "c": 200, "d": 200}, map[string]int{"a": 500}
	if custom {
		o.CustomRefusal = []string{"a"}
	}
	return o
}

// Issue 32, item 5: a full backend's Login Disconnect sends the player on,
// as on the sockets (0 turned away in the liar world; the simulator used to
// predict 160-352), and the strategies that read load learn the refusal as
// capacity: in the operator's own words only once another backend took the
// player, at no more refusals than the vanilla text costs plus a handful.
// (least-connections and round-robin do not read capacity: the vanilla text
// ejects the full backend for a while, their own words keep costing a
// round trip per login, never a player.)
func TestSimulatedRefusalsFailOverAndAreLearnt(t *testing.T) {
	for _, name := range []strategy.Name{strategy.P2C, strategy.LeastLoaded, strategy.LeastConnections, strategy.RoundRobin} {
		full, err := Run(liar(name, false))
		if err != nil {
			t.Fatal(err)
		}
		custom, err := Run(liar(name, true))
		if err != nil {
			t.Fatal(err)
		}
		if full.TurnedAway != 0 || custom.TurnedAway != 0 || full.Placed != full.Count {
			t.Errorf("%s: turned away %d (vanilla text), %d (own text), placed %d; want 0, 0, all",
				name, full.TurnedAway, custom.TurnedAway, full.Placed)
		}
		learns := name == strategy.P2C || name == strategy.LeastLoaded
		if learns && (full.Refusals > 10 || custom.Refusals > full.Refusals+10) {
			t.Errorf("%s: %d refusals with the vanilla text, %d in the operator's words; want at most 10, and no more than 10 extra",
				name, full.Refusals, custom.Refusals)
		}
		t.Logf("%s: refusals %d (vanilla), %d (own words), a holds %d", name, full.Refusals, custom.Refusals, full.Backends[0].Peak)
	}
}
