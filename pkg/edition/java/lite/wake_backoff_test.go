package lite_test

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// TestHundredLoginsToAFailingWakeMakeOneCall pins issue 30's item 9 on real
// sockets: 100 logins, one after another, to a route whose wake call fails
// made 100 engine calls and two wake log lines each. Now the first login's
// failure starts the target's backoff, and every later login within it gets
// the starting Disconnect at once, without an engine call.
func TestHundredLoginsToAFailingWakeMakeOneCall(t *testing.T) {
	logs := &mctest.Logs{}
	e := newEngine(t, "webhook failing", sleepyStatus)
	e.block = time.Nanosecond // the webhook fails at once
	p := startProxy(t, wakeConfig(e.addr, "5s", "10m", refusedAddr(t)), proxyOpts{log: logs.Logger(0),
		wakeTargets: func(wake.Spec) (wake.Target, error) { return e, nil },
		wake:        wake.Options{RetryWakeAfter: time.Minute}})
	waitAsleep(t, p, e.key)
	before := len(logs.Find(""))
	var slowest time.Duration
	for i := range 100 {
		start := time.Now()
		c := dialProxy(t, p.addr)
		c.send(mctest.LoginPreamble(765, "sleepy.example.com", "Steve"))
		if txt := c.disconnectText(); !strings.Contains(txt, "is starting up") {
			t.Fatalf("login %d: %q, want the starting text", i, txt)
		}
		c.Close()
		slowest = max(slowest, time.Since(start))
	}
	lines := logs.Find("")[before:]
	t.Logf("100 logins to a failing wake: %d engine calls, %d log lines, slowest answer %v",
		e.wakes.Load(), len(lines), slowest.Round(time.Millisecond))
	if n := e.wakes.Load(); n != 1 {
		t.Fatalf("%d engine calls for 100 logins, want 1 within the backoff", n)
	}
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2 (the wake's start and its failure):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if s, _ := wakeState(p, e.key); s.Phase != wake.PhaseAsleep || s.RetryAt.IsZero() || !strings.Contains(s.Error, "no answer") {
		t.Fatalf("state %+v, want asleep with the error and the next try", s)
	}
}
