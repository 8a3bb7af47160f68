package strategy

import (
	"testing"
)

// A Disconnect in a text not known to mean "full" (a ban, an operator's own
// wording) says the backend is alive: however many players it turns away, it
// is not ejected; once another backend took such a player, it is learnt full.
func TestRefusalInOwnWordsIsNoFailureAndLearntFullOnceAnotherTookThePlayer(t *testing.T) {
	m, clk := newTestManager(t, P2C, "lobby", "other")
	for range 3 * EjectFailures {
		m.Reserve("lobby").Settle(0, ErrRefused)
	}
	for _, s := range m.Snapshot() {
		if s.Addr == "lobby" && s.Health == HealthEjected {
			t.Fatalf("lobby ejected for turning players away in its own words")
		}
	}
	l := m.Reserve("lobby")
	l.Settle(0, nil) // one player it did take
	now := clk.Now().UnixNano()
	if got := m.backends["lobby"].held(now); got != 0 {
		t.Fatalf("learnt capacity %d before another backend took a refused player, want none", got)
	}
	m.Refused("lobby", "gone")
	if got := m.backends["lobby"].held(now); got != 1 {
		t.Errorf("learnt capacity %d, want 1 (the player it held when it turned one away)", got)
	}
	l.Release()
}
