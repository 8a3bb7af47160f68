package lite_test

import (
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 32, item 6, on sockets: a backend that becomes 3x faster (status
// answers at 90 ms, then 30 ms, beside one at 40 ms that had every login) gets
// at least half the logins of the first ten probe rounds after the change
// under lowest-latency and p2c (LatencyShiftSamples: before, none came until
// more than half of its 15-sample window had changed, 8 rounds). The
// test is paced by the probes, not the clock: each round waits until both
// servers answered one more status request, then logs four players in (the
// simulator's test: probes every second, four logins a second, half of them
// to b within 15-25 s). The simulator, given this world round for round, must
// agree on b's logins in those ten rounds.
func TestThreeTimesFasterBackendGetsHalfTheLoginsOnSockets(t *testing.T) {
	for _, name := range []strategy.Name{strategy.LowestLatency, strategy.P2C} {
		t.Run(string(name), func(t *testing.T) {
			t.Parallel()
			a, b := newLoadServer(t, 1000, "Lobby"), newLoadServer(t, 1000, "Lobby")
			da, db := &serverDelay{d: 40 * time.Millisecond}, &serverDelay{d: 90 * time.Millisecond}
			da.wrap(a)
			db.wrap(b)
			p := startProxy(t, routeConfig(name, adoptProbe, addrs(a, b)...))
			waitStatusRequests(t, adoptWarm-5, a, b) // settled medians
			perRound := func(rounds int) []int64 {
				var onB []int64
				for range rounds {
					waitStatusRequests(t, minStatusRequests([]*loadServer{a, b})+1, a, b)
					before := b.Logins()
					for range 4 {
						dialProxy(t, p.addr).login("lobby.example.com")
					}
					onB = append(onB, b.Logins()-before)
				}
				return onB
			}
			warm := perRound(5)
			db.set(30 * time.Millisecond)
			after := perRound(adoptRounds - adoptWarm)
			windows := make([]int64, len(after)/5) // b's logins per 5 rounds, of 20
			for i, n := range after {
				windows[i/5] += n
			}
			sim := adoptSimulated(t, name)
			t.Logf("%s: b's logins of 4 per round before: %v; after it became 3x faster, per 5 rounds of 20: %v (simulated %v)", name, warm, windows, sim)
			// Then the strategies share by load, about half each: the first ten
			// rounds show how soon b was believed.
			if windows[0]+windows[1] < 20 {
				t.Fatalf("b got %v of 20 logins per 5 probe rounds after it became faster, want at least half of the first 10 rounds'", windows)
			}
			if got, want := sim[0]+sim[1], windows[0]+windows[1]; got < 20 || got-want > 4+want/10 || want-got > 4+want/10 {
				t.Errorf("the simulator gives b %d of the first 40 logins after the change, the sockets %d: want at least 20, and within 10%% (+4)", got, want)
			}
		})
	}
}

// The adoption world, in probe rounds of four logins: adoptWarm rounds before
// b becomes faster, adoptRounds in all.
const (
	adoptProbe  = 250 * time.Millisecond
	adoptWarm   = 15
	adoptRounds = 50
)

// adoptSimulated runs the adoption world in the simulator, round for round: b's
// logins per 5 rounds after the change.
func adoptSimulated(t *testing.T, name strategy.Name) []int64 {
	t.Helper()
	r, err := plan.Run(plan.Options{Strategy: name, Backends: []string{"a", "b"}, Count: 4 * adoptRounds, Seed: 1,
		Latency: map[string]time.Duration{"a": time.Millisecond, "b": time.Millisecond},
		Arrival: adoptProbe / 4, Session: time.Hour, Capacity: map[string]int{"a": 1000, "b": 1000},
		HealthInterval: adoptProbe,
		World:          plan.NoiseWorld{Server: map[string]time.Duration{"a": 40 * time.Millisecond, "b": 90 * time.Millisecond}},
		Events:         []plan.Event{{At: adoptWarm * adoptProbe, Kind: plan.EventServer, Backend: "b", Latency: 30 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, bk := range r.Timeline[adoptWarm/5:] { // ten spans of 5 rounds
		out = append(out, int64(bk.Players[1]))
	}
	return out
}
