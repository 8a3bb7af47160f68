package strategy

import (
	"testing"
	"time"
)

// A backend a reload removed stays visible while players remain on it; one
// that is idle, and one only a template expanded to, are not leaving.
func TestLeavingListsRemovedBackendsWithPlayers(t *testing.T) {
	m, _ := newTestManager(t, LeastConnections, "a", "b", "c")
	onB := m.Reserve("b")
	onB.Settle(time.Millisecond, nil)
	expanded := m.Reserve("mc.example.com:25565") // a template's expansion: never listed
	expanded.Settle(time.Millisecond, nil)
	m.SetRoutes([]Route{{Key: "r", Strategy: LeastConnections, Backends: []string{"a"}}})
	got := m.Leaving()
	if len(got) != 1 || got[0].Addr != "b" || !got[0].Removed || got[0].LastRoute != "r" || got[0].Active != 1 {
		t.Fatalf("Leaving = %+v, want b alone, removed from r with its 1 player", got)
	}
	onB.Release()
	if got := m.Leaving(); len(got) != 0 {
		t.Errorf("Leaving after b's last player left = %+v, want none", got)
	}
	expanded.Release()
}
