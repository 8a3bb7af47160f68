package wake

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

func TestFiftyConcurrentWakesMakeOneWakeCall(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(0)
	f.gate = make(chan struct{})
	var chs []<-chan result
	for range 50 {
		chs = append(chs, r.wakeAsync(context.Background(), readyNow))
	}
	mctest.WaitFor(t, "50 callers on one flight", wait, func() bool { return r.waiters() == 50 })
	if got := r.state().Phase; got != PhaseWaking {
		t.Fatalf("phase %q while the wake call runs, want waking", got)
	}
	close(f.gate)
	for _, ch := range chs {
		if res := recv(t, ch); res.err != nil || res.addr != backend {
			t.Fatalf("Wake = %q, %v; want %q", res.addr, res.err, backend)
		}
	}
	if n := f.wakes.Load(); n != 1 {
		t.Fatalf("%d wake calls for 50 logins, want 1", n)
	}
	if s := r.state(); s.Phase != PhaseAwake || s.Wakes != 1 {
		t.Fatalf("state %+v, want awake after 1 wake", s)
	}
}

func TestThousandPingsToASleepingTargetWakeNothing(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(time.Minute)
	for i := range 1000 {
		if !r.c.Asleep(key) {
			t.Fatalf("ping %d: not asleep", i)
		}
	}
	if f.wakes.Load() != 0 || f.sleeps.Load() != 0 {
		t.Fatalf("%d wake and %d sleep calls for 1000 pings, want 0", f.wakes.Load(), f.sleeps.Load())
	}
	if r.c.Asleep("docker other") {
		t.Fatal("an unbound key is asleep")
	}
}

func TestReadinessWaitEndsWhenReadyFlipsAndAGivingUpCallerLeavesTheOthers(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(0)
	var up atomic.Bool
	var polls atomic.Int64
	ready := func(ctx context.Context, _ Result) (string, bool) {
		polls.Add(1)
		return backend, up.Load()
	}
	ctxA, cancelA := context.WithCancel(context.Background())
	a := r.wakeAsync(ctxA, ready)
	b := r.wakeAsync(context.Background(), ready)
	c := r.wakeAsync(context.Background(), ready)
	mctest.WaitFor(t, "3 callers and a first poll", wait, func() bool { return r.waiters() == 3 && polls.Load() >= 1 })
	r.clk.Advance(2 * time.Second)

	cancelA()
	if res := recv(t, a); !errors.Is(res.err, context.Canceled) {
		t.Fatalf("caller who gave up: %v, want context.Canceled", res.err)
	}
	// The others still wait on the same flight, which still polls.
	mctest.WaitFor(t, "the giving-up caller to leave", wait, func() bool { return r.waiters() == 2 })
	before := polls.Load()
	r.drive("more polls", func() bool { return polls.Load() > before })

	up.Store(true)
	var got []result
	r.drive("the two others to join", func() bool {
		for _, ch := range []<-chan result{b, c} {
			select {
			case res := <-ch:
				got = append(got, res)
			default:
			}
		}
		return len(got) == 2
	})
	for _, res := range got {
		if res.err != nil || res.addr != backend {
			t.Fatalf("Wake = %q, %v; want %q", res.addr, res.err, backend)
		}
	}
	if n := f.wakes.Load(); n != 1 {
		t.Fatalf("%d wake calls, want 1", n)
	}
	if s := r.state(); s.Phase != PhaseAwake || s.LastWake < 2*time.Second {
		t.Fatalf("state %+v, want awake with a wake of at least 2s", s)
	}
}

func TestFailedWakeReturnsPromptlyToEveryCallerAndStaysAsleep(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(0)
	boom := errors.New("engine says no")
	f.wakeErr = boom
	f.gate = make(chan struct{})
	var chs []<-chan result
	for range 5 {
		chs = append(chs, r.wakeAsync(context.Background(), readyNow))
	}
	mctest.WaitFor(t, "5 callers", wait, func() bool { return r.waiters() == 5 })
	close(f.gate)
	for _, ch := range chs {
		if res := recv(t, ch); !errors.Is(res.err, boom) {
			t.Fatalf("Wake error %v, want the engine's", res.err)
		}
	}
	s := r.state()
	if s.Phase != PhaseAsleep || !strings.Contains(s.Error, "engine says no") || s.Wakes != 0 {
		t.Fatalf("state %+v, want asleep with the engine's error", s)
	}
	if !r.c.Asleep(key) {
		t.Fatal("pings no longer answered as asleep after a failed wake")
	}
	// The next login after the backoff tries again.
	r.clk.Advance(time.Second)
	f.mu.Lock()
	f.wakeErr = nil
	f.mu.Unlock()
	if res := recv(t, r.wakeAsync(context.Background(), readyNow)); res.err != nil {
		t.Fatalf("second wake: %v", res.err)
	}
	if s := r.state(); s.Phase != PhaseAwake || s.Error != "" {
		t.Fatalf("state %+v after a good wake, want awake without error", s)
	}
}

func TestNotReadyWithinReadyWithinEndsTheFlightAwake(t *testing.T) {
	r := newRig(t, nil)
	r.c.readyWithin = 30 * time.Second
	f := r.asleepTarget(time.Minute)
	never := func(context.Context, Result) (string, bool) { return "", false }
	ch := r.wakeAsync(context.Background(), never)
	var res result
	r.drive("the flight to give up", func() bool {
		select {
		case res = <-ch:
			return true
		default:
			return false
		}
	})
	if !errors.Is(res.err, ErrNotReady) {
		t.Fatalf("Wake error %v, want ErrNotReady", res.err)
	}
	// The engine runs it, so nobody joining puts it back to sleep.
	if s := r.state(); s.Phase != PhaseIdle || s.LastWake != 0 {
		t.Fatalf("state %+v, want idle and no measured wake", s)
	}
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "the sleep call", wait, func() bool { return f.sleeps.Load() == 1 })
}

func TestTypicalWakeIsTheMedianOfTheLastFiveWakes(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(time.Second)
	if d := r.c.TypicalWake(key); d != 0 {
		t.Fatalf("TypicalWake before any wake = %v, want 0", d)
	}
	takes := []time.Duration{10 * time.Second, 2 * time.Second, 30 * time.Second, 4 * time.Second, 6 * time.Second, 8 * time.Second}
	f.takes = takes
	want := []time.Duration{10, 10, 10, 10, 6, 6} // medians after each wake, in seconds
	for i := range takes {
		if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err != nil {
			t.Fatal(err)
		}
		if d := r.c.TypicalWake(key); d != want[i]*time.Second {
			t.Fatalf("after wake %d: TypicalWake = %v, want %v", i+1, d, want[i]*time.Second)
		}
		if s := r.state(); s.LastWake != takes[i] {
			t.Fatalf("after wake %d: LastWake = %v, want %v", i+1, s.LastWake, takes[i])
		}
		r.clk.Advance(time.Second) // idle countdown: back to sleep
		mctest.WaitFor(t, "asleep again", wait, func() bool { return r.c.Asleep(key) })
	}
}

func TestCloseEndsWaitsAndLeavesNoGoroutines(t *testing.T) {
	clk := mctest.NewTimerClock(time.Time{})
	c := NewCoordinator(Options{Now: clk.Now, AfterFunc: clk.AfterFunc})
	no := false
	f := &fakeTarget{key: key, running: &no}
	c.Bind([]Binding{{Target: observerTarget{f}, IdleAfter: time.Minute}})
	mctest.WaitFor(t, "asleep", wait, func() bool { return c.Asleep(key) })
	ch := make(chan error, 1)
	go func() {
		_, err := c.Wake(context.Background(), key, Request{}, func(context.Context, Result) (string, bool) { return "", false })
		ch <- err
	}()
	c.Session(key) // a renewal timer and a hold loop
	mctest.WaitFor(t, "the first poll", wait, func() bool { return f.wakes.Load() == 1 })
	c.Close()
	select {
	case err := <-ch:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Wake after Close: %v, want ErrClosed", err)
		}
	case <-time.After(wait):
		t.Fatal("Wake still waits after Close")
	}
	c.Close()
	if _, err := c.Wake(context.Background(), key, Request{}, readyNow); !errors.Is(err, ErrClosed) {
		t.Fatalf("Wake on a closed Coordinator: %v", err)
	}
	clk.Advance(time.Hour) // stopped timers do nothing
}

func TestObserverRunningStartsAwake(t *testing.T) {
	r := newRig(t, nil)
	yes := true
	f := &fakeTarget{key: key, running: &yes}
	r.c.Bind([]Binding{{Target: observerTarget{f}}})
	r.c.Close() // waits for the observer's answer
	if r.c.Asleep(key) {
		t.Fatal("a running target starts asleep")
	}
}

func TestSessionToATargetThoughtAsleepMakesItAwake(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(time.Minute)
	end := r.c.Session(key) // it ran after all: the backend took a player
	if s := r.state(); s.Phase != PhaseAwake || r.c.Asleep(key) {
		t.Fatalf("state %+v with a session, want awake", s)
	}
	end()
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "the sleep", wait, func() bool { return f.sleeps.Load() == 1 })
	if f.wakes.Load() != 0 {
		t.Fatalf("%d wake calls, want 0", f.wakes.Load())
	}
}

// BenchmarkAsleep is the ping path of a sleeping route.
func BenchmarkAsleep(b *testing.B) {
	c := NewCoordinator(Options{})
	defer c.Close()
	c.Bind([]Binding{{Target: &fakeTarget{key: key}}})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Asleep(key)
		}
	})
}

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
