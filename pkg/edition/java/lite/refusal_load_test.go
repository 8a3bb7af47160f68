package lite_test

import (
	"fmt"
	"testing"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 22, defect 6: a server that reports max 500 but holds 40 turns players away
// with a Login Disconnect right after their login. The reports say it has room, so
// p2c and least-loaded kept sending players there (196 and 238 turned away in the
// issue's run, round-robin 18). A refusal is now load: the backend's capacity is what
// it held when it refused, so the load-reading strategies turn away no more players
// than round-robin does.
func TestRefusalsCountAsLoad(t *testing.T) {
	const players, holds = 150, 40
	run := func(t *testing.T, name strategy.Name) int64 {
		p, liarB := liarWorld(t, name, holds)
		if name != strategy.RoundRobin {
			waitReports(t, p, 3)
		}
		for i := range players {
			c := dialProxy(t, p.addr)
			c.login(fmt.Sprintf("p%d.example.com", i))
		}
		t.Logf("%s: the server holding %d turned away %d players; it holds %d",
			name, holds, liarB.Refused(), liarB.Active())
		return liarB.Refused()
	}
	rr := run(t, strategy.RoundRobin)
	for _, name := range []strategy.Name{strategy.P2C, strategy.LeastLoaded, strategy.WeightedRandom} {
		t.Run(string(name), func(t *testing.T) {
			if got := run(t, name); got > rr {
				t.Errorf("%s turned away %d players at the full server, round-robin %d", name, got, rr)
			}
		})
	}
}
