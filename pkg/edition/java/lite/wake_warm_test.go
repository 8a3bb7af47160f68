package lite_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Logins that arrive just after a wake (players a long hold sends back, all at
// once) meet a server that has just started and answers them slower than the
// first-response timeout. They get a held login's patience: each joins on its
// first attempt, so the server is neither failed nor woken again. Before, each
// timed out once, was held, and was logged in a second time.
func TestLoginsJustAfterAWakeGetAHeldLoginsPatience(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay, e.loginDelay = time.Second, 1500*time.Millisecond
	yaml := oneRoute("sleepy.example.com", e.addr).with(`wake: {webhook: "http://127.0.0.1:9/wake"}`, "holdFor: 10s").
		withLite("firstResponseTimeout: 500ms").quotasOff("maxConnectionsPerIP: 0").String()
	p := startProxy(t, yaml, proxyOpts{wakeTargets: func(wake.Spec) (wake.Target, error) { return e, nil }})
	waitAsleep(t, p, e.key)
	// The wake's own player is held and joins too; the others come the moment the
	// server is found, before any login of it has been answered.
	c := mctest.Dial(t, p.addr)
	if _, err := c.Write(mctest.LoginPreamble(765, "sleepy.example.com", "waker")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server up and found", 10*time.Second, func() bool {
		ph := phase(p, e.key)
		return ph == wake.PhaseAwake || ph == wake.PhaseIdle
	})

	const players = 5
	rng := rand.New(rand.NewPCG(5, 5))
	sent := make([][]byte, players)
	for i := range sent {
		sent[i] = heldLogin(rng, i)
	}
	_, errs, joinedAfter := joinWith(t, p.addr, sent)
	for i, err := range errs {
		if err != nil {
			t.Errorf("player %d: %v", i, err)
		}
	}
	if n := e.server().Logins(); n != players+1 || e.wakes.Load() != 1 {
		t.Fatalf("the server saw %d logins for %d players, %d wake calls; want one login each and 1 call", n, players+1, e.wakes.Load())
	}
	t.Logf("%d players right after a wake, server answering logins in %v against a 500ms first-response timeout: all joined on the first attempt, the last after %v",
		players, e.loginDelay, joinedAfter[len(joinedAfter)-1].Round(time.Millisecond))
}
