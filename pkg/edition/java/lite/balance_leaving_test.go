package lite_test

import (
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// Issue 32, item 9: after a scale-down, the removed backend's players vanished
// from /api/v1/backends, `gate lite status` and the metrics (all read
// Lite.Backends) until they left. Now the backend stays, marked removed, with its
// live players, until the last one leaves.
func TestRemovedBackendStaysVisibleWhilePlayersRemain(t *testing.T) {
	a, b := newBackend(t, ""), newBackend(t, "")
	p := startProxy(t, oneRoute("*", a.addr, b.addr).with("strategy: round-robin").String())
	var players []*mctest.Client
	for i := range 6 {
		c := dialProxy(t, p.addr).Client
		if err := joinEcho(c, "play.example.com", fmt.Sprintf("p%d", i)); err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
		players = append(players, c)
	}
	mctest.WaitFor(t, "3 players on b", 5*time.Second, func() bool { return b.Active() == 3 })
	if err := p.reload(oneRoute("*", a.addr).String()); err != nil {
		t.Fatal(err)
	}
	seen := func() (int64, string) {
		var total int64
		why := ""
		for _, row := range p.Backends() {
			total += row.State.Active
			if row.Backend == b.addr {
				why = row.Reason + ": " + row.Why
				if !row.State.Removed {
					t.Errorf("b's row is not marked removed: %+v", row)
				}
			}
		}
		return total, why
	}
	total, why := seen()
	t.Logf("after the scale-down: %d of 6 players visible; b: %s", total, why)
	if total != 6 {
		t.Errorf("%d of 6 live players visible after the scale-down, want all", total)
	}
	for _, c := range players {
		_ = c.Close()
	}
	mctest.WaitFor(t, "b's last player gone from the view", 5*time.Second, func() bool {
		_, why := seen()
		return why == ""
	})
}
