package plan

import (
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 32, item 11, in the simulator: 200 players who each come back once.
// Sticky sends at least 95% home; a strategy that ignores who the player is
// sends them where the load says (about one in four of four backends).
func TestReturningPlayersUnderSticky(t *testing.T) {
	t.Parallel()
	run := func(name strategy.Name) *Result {
		r, err := Run(Options{Strategy: name, Backends: []string{"a", "b", "c", "d"}, Count: 400, Population: 200,
			Session: 2 * time.Minute, Arrival: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	s, p := run(strategy.Sticky), run(strategy.P2C)
	t.Logf("returns home: sticky %d of %d, p2c %d of %d", s.Home, s.Returns, p.Home, p.Returns)
	if s.Returns != 200 || s.Home*100 < 95*s.Returns {
		t.Errorf("sticky: %d of %d returns home, want at least 95%% of 200", s.Home, s.Returns)
	}
	if p.Home*2 > p.Returns {
		t.Errorf("p2c: %d of %d returns home, want about a quarter (it does not know the player)", p.Home, p.Returns)
	}
	if _, err := Run(Options{Backends: []string{"a"}, Population: -1}); err == nil {
		t.Error("a negative population was accepted")
	}
}
