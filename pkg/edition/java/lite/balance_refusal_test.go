package lite_test

import (
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// lobbyFull is an operator's own "full" text, which no list of known texts holds.
const lobbyFull = `{"text":"The lobby is at capacity"}`

// Issue 32, item 4, scaled: a fleet of four 10-slot lobbies that refuse in the
// operator's words. Players from elsewhere (another replica) fill two lobbies after
// the last status reports, so p2c's reports say there is room where there is none.
// On main p2c delivered the refusal to the player (a first byte is an answer), and
// players were turned away while the fleet had free slots. Now a Login Disconnect
// as a backend's first answer, in any text, sends the player on to the next backend,
// and one that turned away a player another backend took is learnt full.
func TestCustomTextRefusalTurnsAwayNoPlayerWhileTheFleetHasRoom(t *testing.T) {
	const slots, players = 10, 18 // 4 x 10 slots, 20 taken from elsewhere: 20 free
	for _, name := range []strategy.Name{strategy.P2C, strategy.LeastConnections} {
		t.Run(string(name), func(t *testing.T) {
			var bs []*backend
			for range 4 {
				b := newBackendWith(t, mctest.Options{Capacity: slots, FullText: lobbyFull})
				b.SetStatusFunc(func() string { return mctest.StatusJSON("lobby", int(b.Active()), slots) })
				bs = append(bs, b)
			}
			var addrs []string
			for _, b := range bs {
				addrs = append(addrs, b.addr)
			}
			p := startProxy(t, oneRoute("*", addrs...).with("strategy: "+string(name)).quotasOff().
				withLite("healthCheck: {interval: 30s, timeout: 2s}").String(), proxyOpts{seed: 4})
			if name == strategy.P2C {
				waitReports(t, p, len(bs))
			}
			for _, b := range bs[:2] { // another replica's players, unseen by the reports
				for i := range slots {
					if err := joinEcho(mctest.Dial(t, b.addr), "lobby.example.com", fmt.Sprintf("o%d", i)); err != nil {
						t.Fatalf("fill %s: %v", b.addr, err)
					}
				}
			}
			turnedAway := 0
			for i := range players {
				c := dialProxy(t, p.addr).Client
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				if err := joinEcho(c, "lobby.example.com", fmt.Sprintf("p%d", i)); err != nil {
					turnedAway++
					t.Logf("player %d: %v", i, err)
				}
			}
			refused := bs[0].Refused() + bs[1].Refused()
			t.Logf("%s: %d of %d players turned away with 20 free slots; %d refusals by the full lobbies", name, turnedAway, players, refused)
			if turnedAway != 0 {
				t.Errorf("%d players turned away while the fleet had free slots, want 0", turnedAway)
			}
			sim := refusalWorldSimulated(t, name, slots, players)
			t.Logf("%s simulated: %d turned away, %d refusals", name, sim.TurnedAway, sim.Refusals)
			if diff(turnedAway, sim.TurnedAway) > max(1, players/10) {
				t.Errorf("the simulator turns away %d, the sockets %d: more than 10%% apart", sim.TurnedAway, turnedAway)
			}
		})
	}
}

// refusalWorldSimulated is the same world in the simulator: four lobbies of
// slots refusing in their own words, the first two already full with players
// from elsewhere that the reports (every 30s, taken before) do not count.
func refusalWorldSimulated(t *testing.T, name strategy.Name, slots, players int) *plan.Result {
	t.Helper()
	lobbies := []string{"a", "b", "c", "d"}
	caps := map[string]int{}
	for _, l := range lobbies {
		caps[l] = slots
	}
	r, err := plan.Run(plan.Options{Strategy: name, Backends: lobbies, Count: players, Session: time.Hour,
		Arrival: 10 * time.Millisecond, HealthInterval: 30 * time.Second, Capacity: caps, CustomRefusal: lobbies,
		Held: map[string]int{"a": slots, "b": slots}, ReportOnline: map[string]int{"a": 0, "b": 0}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
