package lite_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Wake targets across reloads: built once, bad ones served without waking, countdowns kept.

var _ lite.TargetFactory = func(wake.Spec) (wake.Target, error) { return nil, nil }

// TestReloadDoesNotMoveTheSleep: a reload in the middle of an idle countdown (even one
// that changes idleAfter) leaves the sleep at its original time.
func TestReloadDoesNotMoveTheSleep(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.start()
	clk := mctest.NewTimerClock(time.Time{})
	awake := refusedAddr(t)
	yaml := func(idle string) string {
		return wakeConfig(e.addr, "25s", idle, awake)
	}
	p := startProxy(t, yaml("60s"), proxyOpts{
		wakeTargets: func(wake.Spec) (wake.Target, error) { return e, nil },
		wake:        wake.Options{Now: clk.Now, AfterFunc: clk.AfterFunc},
	})
	t0 := clk.Now()
	state := func() wake.State {
		s, _ := wakeState(p, e.key)
		return s
	}
	waitFor(t, "idle countdown", 5*time.Second, func() bool { return state().Phase == wake.PhaseIdle })
	if at := state().SleepAt; !at.Equal(t0.Add(60 * time.Second)) {
		t.Fatalf("sleep at %v, want %v", at, t0.Add(60*time.Second))
	}
	clk.Advance(30 * time.Second)
	if err := p.reload(yaml("10m")); err != nil {
		t.Fatal(err)
	}
	if s := state(); s.Phase != wake.PhaseIdle || !s.SleepAt.Equal(t0.Add(60*time.Second)) {
		t.Fatalf("after reload: %+v, want idle until %v", s, t0.Add(60*time.Second))
	}
	clk.Advance(29 * time.Second)
	if n := e.sleeps.Load(); n != 0 {
		t.Fatalf("slept %d times before the original time", n)
	}
	clk.Advance(time.Second)
	waitFor(t, "one sleep at the original time", 5*time.Second, func() bool { return e.sleeps.Load() == 1 })
}

// TestWakeTargetsBuiltOnceAndBadOnesServeWithoutWaking: a reload that keeps a route's
// wake spec keeps its target (the factory is not called again); a target the factory
// cannot build leaves its route served without waking, and the reload applies.
func TestWakeTargetsBuiltOnceAndBadOnesServeWithoutWaking(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	var built atomic.Int64
	var broken atomic.Bool
	factory := func(wake.Spec) (wake.Target, error) {
		built.Add(1)
		if broken.Load() {
			return nil, errors.New("no webhook client configured")
		}
		return e, nil
	}
	yaml := func(url string) string {
		y := wakeConfig(e.addr, "2s", "10m", refusedAddr(t))
		return strings.Replace(y, "http://127.0.0.1:9/wake", url, 1)
	}
	p := startProxy(t, yaml("http://127.0.0.1:9/wake"), proxyOpts{wakeTargets: factory})
	reload := func(y string) {
		t.Helper()
		if err := p.reload(y); err != nil {
			t.Fatalf("reload: %v", err)
		}
	}
	reload(yaml("http://127.0.0.1:9/wake"))
	if n := built.Load(); n != 1 {
		t.Fatalf("factory called %d times for one unchanged spec, want 1", n)
	}
	broken.Store(true)
	reload(yaml("http://127.0.0.1:9/other"))
	if s := p.Wake().States(); len(s) != 0 {
		t.Fatalf("states %+v, want none: the route has no usable target", s)
	}
	c := dialProxy(t, p.addr)
	c.send(mctest.LoginPreamble(765, "sleepy.example.com", "Steve"))
	if txt := c.disconnectText(); !strings.Contains(txt, "unavailable") {
		t.Fatalf("login to a route without a usable target got %q", txt)
	}
	if e.wakes.Load() != 0 {
		t.Fatal("woken through an unusable target")
	}
}
