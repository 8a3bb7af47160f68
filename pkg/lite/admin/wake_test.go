package admin

import (
	"io"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/wake"
)

func TestWakeShowsEachTargetsPhaseAndCountdown(t *testing.T) {
	s, _ := newTestServer(t, Options{Token: "s3cret", Wake: func() []wake.State {
		return []wake.State{
			{Key: "docker survival", Phase: "asleep", Since: reportAt.Add(-2 * time.Hour), PlayersOnline: -1, Sleeps: 1,
				Error: "docker survival: start: no such container"},
			{Key: "kubernetes games/deployment/lobby", Phase: "idle", Since: reportAt.Add(-30 * time.Second),
				PlayersOnline: 0, SleepAt: reportAt.Add(9*time.Minute + 30*time.Second), LastWake: 8412 * time.Millisecond, Wakes: 1},
		}
	}})
	got := fetchTable(t, s, PathWake, "s3cret", (*Client).Wake, func(w io.Writer, ss []wake.State) error {
		return WriteWake(w, ss, reportAt)
	})
	wantTable(t, got,
		"TARGET                             PHASE   SINCE       SESSIONS  ONLINE  SLEEPS IN  LAST WAKE  WAKES/SLEEPS",
		"docker survival                    asleep  2h0m0s ago  0         ?       -          -          0/1",
		"kubernetes games/deployment/lobby  idle    30s ago     0         0       9m30s      8.4s       1/0",
		"failed docker survival: docker survival: start: no such container")
}

func TestWakeIsAnEmptyListWithoutTargets(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	code, body := do(t, s.Handler(), "GET", PathWake, "")
	if code != 200 || strings.TrimSpace(body) != "[]" {
		t.Fatalf("%d %q, want 200 []", code, body)
	}
}
