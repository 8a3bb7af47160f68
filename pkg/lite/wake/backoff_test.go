package wake

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// TestHundredLoginsToAFailingTargetShareOneBackoff pins issue 30's item 9:
// 100 logins to a target whose command exits 3 made 100 engine calls and a
// pair of log lines each. Logins come every 30ms for 3s: the first calls and
// fails (backoff 1s), the one at 1.02s calls again (backoff 2s, past the
// last login); the other 98 are turned away without a call.
func TestHundredLoginsToAFailingTargetShareOneBackoff(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(0)
	f.wakeErr = errors.New("exit status 3")
	start := r.clk.Now()
	before := r.log.Count("")
	turnedAway := 0
	for i := range 100 {
		_, err := r.c.Wake(context.Background(), key, Request{}, readyNow)
		switch {
		case errors.Is(err, ErrBackoff):
			turnedAway++
		case err == nil || !strings.Contains(err.Error(), "exit status 3"):
			t.Fatalf("login %d: %v, want the engine's error or ErrBackoff", i, err)
		}
		r.clk.Advance(30 * time.Millisecond)
	}
	lines := r.log.Count("") - before
	t.Logf("100 logins over 3s to a failing target: %d wake calls, %d turned away, %d log lines", f.wakes.Load(), turnedAway, lines)
	if n := f.wakes.Load(); n != 2 || turnedAway != 98 {
		t.Fatalf("%d wake calls and %d logins turned away, want 2 and 98", n, turnedAway)
	}
	// Per call: asleep -> waking, and waking -> asleep with the error.
	if lines != 4 || r.log.Count(`"turnedAway"=33`) != 1 || r.log.Count(`"retryIn"="2s"`) != 1 {
		t.Fatalf("%d log lines, want 4 (the second start telling 33 turned away, its failure retrying in 2s):\n%s",
			lines, strings.Join(r.log.Find(""), "\n"))
	}
	s := r.state()
	if s.Phase != PhaseAsleep || !strings.Contains(s.Error, "exit status 3") || !s.RetryAt.Equal(start.Add(1020*time.Millisecond+2*time.Second)) {
		t.Fatalf("state %+v, want asleep with the error and the next try 2s after the second call", s)
	}
	if !r.c.Asleep(key) {
		t.Fatal("pings not answered as asleep while backing off")
	}
}

// TestBackoffDoublesToItsCapAndASuccessfulWakeResetsIt: failures in a row
// wait 1s, 2s, 4s, 4s (the cap here); after a good wake (and the sleep that
// follows) the next failure waits 1s again.
func TestBackoffDoublesToItsCapAndASuccessfulWakeResetsIt(t *testing.T) {
	r := newRig(t, nil)
	r.c.retryAtMost = 4 * time.Second
	f := r.asleepTarget(time.Minute)
	f.wakeErr = errors.New("403 Forbidden")
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err == nil || errors.Is(err, ErrBackoff) {
			t.Fatalf("failure %d: %v, want the engine's error", i+1, err)
		}
		if got := r.state().RetryAt.Sub(r.clk.Now()); got != want {
			t.Fatalf("failure %d: next try in %v, want %v", i+1, got, want)
		}
		r.clk.Advance(want)
	}
	f.mu.Lock()
	f.wakeErr = nil
	f.mu.Unlock()
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err != nil {
		t.Fatalf("wake after the backoff: %v", err)
	}
	if s := r.state(); s.Phase != PhaseIdle || !s.RetryAt.IsZero() || s.Error != "" {
		t.Fatalf("state %+v after a good wake, want idle (nobody came) with no retry time or error", s)
	}
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "asleep after idleAfter", wait, func() bool { return r.c.Asleep(key) })
	f.mu.Lock()
	f.wakeErr = errors.New("403 Forbidden")
	f.mu.Unlock()
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err == nil {
		t.Fatal("wake succeeded, want the engine's error")
	}
	if got := r.state().RetryAt.Sub(r.clk.Now()); got != time.Second {
		t.Fatalf("next try in %v after a good wake, want the backoff reset to 1s", got)
	}
	if n := f.wakes.Load(); n != 6 {
		t.Fatalf("%d wake calls, want 6 (none while backing off)", n)
	}
}

// TestASessionEndsTheBackoff: a player who got in some other way (the
// server was started by hand) shows the target running.
func TestASessionEndsTheBackoff(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(0)
	f.wakeErr = errors.New("exit status 3")
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err == nil {
		t.Fatal("wake succeeded, want the engine's error")
	}
	end := r.c.Session(key)
	defer end()
	if s := r.state(); s.Phase != PhaseAwake || !s.RetryAt.IsZero() || r.c.Asleep(key) {
		t.Fatalf("state %+v with a session, want awake and no backoff", s)
	}
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err != nil {
		t.Fatalf("wake of a target with a session: %v", err)
	}
}
