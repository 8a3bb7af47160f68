package admin

import (
	"bytes"
	"context"
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
	url := serve(t, s)
	if code, _ := do(t, s.Handler(), "GET", PathWake, ""); code != 401 {
		t.Fatalf("without the token: %d, want 401", code)
	}
	ss, err := (&Client{URL: url, Token: "s3cret"}).Wake(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteWake(&out, ss, reportAt); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"TARGET                             PHASE   SINCE       SESSIONS  ONLINE  SLEEPS IN  LAST WAKE  WAKES/SLEEPS",
		"docker survival                    asleep  2h0m0s ago  0         ?       -          -          0/1",
		"kubernetes games/deployment/lobby  idle    30s ago     0         0       9m30s      8.4s       1/0",
		"failed docker survival: docker survival: start: no such container",
		"",
	}, "\n")
	if out.String() != want {
		t.Fatalf("table:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestWakeIsAnEmptyListWithoutTargets(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	code, body := do(t, s.Handler(), "GET", PathWake, "")
	if code != 200 || strings.TrimSpace(body) != "[]" {
		t.Fatalf("%d %q, want 200 []", code, body)
	}
}
