package lite_test

import (
	"testing"
	"time"

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
// to b within 15-25 s).
func TestThreeTimesFasterBackendGetsHalfTheLoginsOnSockets(t *testing.T) {
	for _, name := range []strategy.Name{strategy.LowestLatency, strategy.P2C} {
		t.Run(string(name), func(t *testing.T) {
			t.Parallel()
			a, b := newLoadServer(t, 1000, "Lobby"), newLoadServer(t, 1000, "Lobby")
			da, db := &serverDelay{d: 40 * time.Millisecond}, &serverDelay{d: 90 * time.Millisecond}
			da.wrap(a)
			db.wrap(b)
			p := startProxy(t, routeConfig(name, 250*time.Millisecond, addrs(a, b)...))
			waitStatusRequests(t, 12, a, b) // settled medians
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
			after := perRound(25)
			windows := make([]int64, 5) // b's logins per 5 rounds, of 20
			for i, n := range after {
				windows[i/5] += n
			}
			t.Logf("%s: b's logins of 4 per round before: %v; after it became 3x faster, per 5 rounds of 20: %v", name, warm, windows)
			// Then the strategies share by load, about half each: the first ten
			// rounds show how soon b was believed.
			if windows[0]+windows[1] < 20 {
				t.Fatalf("b got %v of 20 logins per 5 probe rounds after it became faster, want at least half of the first 10 rounds'", windows)
			}
		})
	}
}
