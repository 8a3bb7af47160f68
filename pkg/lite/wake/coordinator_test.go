package wake

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
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
	// The next login tries again.
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

func TestIdleCountdownSleepsOnceAtIdleAfterTheLastSession(t *testing.T) {
	r := newRig(t, nil)
	f := &fakeTarget{key: key}
	r.c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}})
	if s := r.state(); s.Phase != PhaseIdle || s.PlayersOnline != -1 {
		t.Fatalf("new target %+v, want idle (awake, unknown, nobody on it)", s)
	}
	r.clk.Advance(30 * time.Second)
	end := r.c.Session(key)
	end2 := r.c.Session(key)
	if s := r.state(); s.Phase != PhaseAwake || s.Sessions != 2 {
		t.Fatalf("with sessions %+v, want awake", s)
	}
	r.clk.Advance(10 * time.Minute)
	r.c.ReportPlayers(key, 0)
	end()
	end() // idempotent
	end2()
	ended := r.clk.Now()
	if s := r.state(); s.Phase != PhaseIdle || !s.SleepAt.Equal(ended.Add(time.Minute)) {
		t.Fatalf("after the last session %+v, want idle until %v", s, ended.Add(time.Minute))
	}
	r.clk.Advance(time.Minute - time.Millisecond)
	r.quiet()
	if n := f.sleeps.Load(); n != 0 {
		t.Fatalf("%d sleep calls before IdleAfter", n)
	}
	r.clk.Advance(time.Millisecond)
	mctest.WaitFor(t, "asleep", wait, func() bool { return r.c.Asleep(key) })
	r.clk.Advance(time.Hour)
	r.quiet()
	if n := f.sleeps.Load(); n != 1 {
		t.Fatalf("%d sleep calls, want 1", n)
	}
	s := r.state()
	if s.Sleeps != 1 || !s.Since.Equal(ended.Add(time.Minute)) {
		t.Fatalf("state %+v, want asleep since %v", s, ended.Add(time.Minute))
	}
	if n := r.log.Count(`"from"="idle" "to"="asleep"`); n != 1 {
		t.Fatalf("%d idle->asleep log lines, want 1", n)
	}
}

func TestSessionCancelsIdleCountdown(t *testing.T) {
	r := newRig(t, nil)
	f := &fakeTarget{key: key}
	r.c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}})
	r.clk.Advance(59 * time.Second)
	end := r.c.Session(key)
	r.clk.Advance(time.Hour)
	r.quiet()
	if n := f.sleeps.Load(); n != 0 || r.state().Phase != PhaseAwake {
		t.Fatalf("%d sleep calls with a session, phase %q", n, r.state().Phase)
	}
	end()
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "the sleep after the session", wait, func() bool { return f.sleeps.Load() == 1 })
}

func TestPlayersReportCancelsIdleCountdown(t *testing.T) {
	r := newRig(t, nil)
	f := &fakeTarget{key: key}
	r.c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}})
	r.clk.Advance(59 * time.Second)
	r.c.ReportPlayers(key, 3)
	if s := r.state(); s.Phase != PhaseAwake || s.PlayersOnline != 3 {
		t.Fatalf("state %+v, want awake with 3 players", s)
	}
	r.clk.Advance(time.Hour)
	r.quiet()
	if n := f.sleeps.Load(); n != 0 {
		t.Fatalf("%d sleep calls with players online", n)
	}
	r.c.ReportPlayers(key, 0)
	r.c.ReportPlayers(key, 0) // a repeated 0 does not re-arm
	deadline := r.clk.Now().Add(time.Minute)
	if s := r.state(); s.Phase != PhaseIdle || !s.SleepAt.Equal(deadline) {
		t.Fatalf("state %+v, want idle until %v", s, deadline)
	}
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "the sleep", wait, func() bool { return f.sleeps.Load() == 1 })
}

func TestReloadMidCountdownKeepsTheOriginalDeadline(t *testing.T) {
	for _, tc := range []struct {
		name      string
		idleAfter time.Duration
	}{
		{"longer IdleAfter", 10 * time.Minute},
		{"shorter IdleAfter", 10 * time.Second},
		{"same IdleAfter", time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			old := &fakeTarget{key: key}
			r.c.Bind([]Binding{{Target: old, IdleAfter: time.Minute}})
			deadline := r.clk.Now().Add(time.Minute)
			r.clk.Advance(30 * time.Second)
			reloaded := &fakeTarget{key: key} // a new value for the same key
			r.c.Bind([]Binding{{Target: reloaded, IdleAfter: tc.idleAfter}})
			if s := r.state(); s.Phase != PhaseIdle || !s.SleepAt.Equal(deadline) {
				t.Fatalf("after reload %+v, want idle until %v", s, deadline)
			}
			r.clk.Advance(30*time.Second - time.Millisecond)
			r.quiet()
			if n := old.sleeps.Load() + reloaded.sleeps.Load(); n != 0 {
				t.Fatalf("%d sleep calls before the original deadline", n)
			}
			r.clk.Advance(time.Millisecond)
			mctest.WaitFor(t, "asleep at the original deadline", wait, func() bool { return r.c.Asleep(key) })
			if old.sleeps.Load() != 0 || reloaded.sleeps.Load() != 1 {
				t.Fatalf("sleep calls: old %d, reloaded %d; want the reloaded value called once",
					old.sleeps.Load(), reloaded.sleeps.Load())
			}
			// The next countdown uses the new IdleAfter.
			if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err != nil {
				t.Fatal(err)
			}
			if s := r.state(); s.Phase != PhaseIdle || !s.SleepAt.Equal(r.clk.Now().Add(tc.idleAfter)) {
				t.Fatalf("next countdown %+v, want idle for %v", s, tc.idleAfter)
			}
		})
	}
}

func TestReloadDropsGoneKeysAndKeepsTheOthersState(t *testing.T) {
	r := newRig(t, nil)
	f := &fakeTarget{key: key}
	other := &fakeTarget{key: "docker other"}
	r.c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}, {Target: other, IdleAfter: time.Minute}})
	end := r.c.Session(key)
	r.c.ReportPlayers(key, 4)
	r.c.Bind([]Binding{{Target: other, IdleAfter: time.Minute}})
	if ss := r.c.States(); len(ss) != 1 || ss[0].Key != "docker other" || ss[0].Phase != PhaseIdle {
		t.Fatalf("states %+v, want only the other, still idle", ss)
	}
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); !errors.Is(err, ErrUnbound) {
		t.Fatalf("Wake of a dropped key: %v, want ErrUnbound", err)
	}
	// Bound again while its session lasts: the state is the same.
	r.c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}, {Target: other, IdleAfter: time.Minute}})
	if s := r.state(); s.Sessions != 1 || s.PlayersOnline != 4 || s.Phase != PhaseAwake {
		t.Fatalf("state %+v, want the session and players kept", s)
	}
	end()
	r.c.ReportPlayers(key, 0)
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "both asleep", wait, func() bool { return r.c.Asleep(key) && r.c.Asleep("docker other") })
}

func TestSessionHoldsAtOnceRenewsAndReleases(t *testing.T) {
	h := &recordingHolders{Holders: Local()}
	r := newRig(t, h)
	r.c.Bind([]Binding{{Target: &fakeTarget{key: key}, IdleAfter: time.Minute}})
	end1 := r.c.Session(key)
	mctest.WaitFor(t, "Hold 1", wait, func() bool { return h.last() == "1" })
	end2 := r.c.Session(key)
	r.clk.Advance(10 * time.Second)
	mctest.WaitFor(t, "renewal with 2", wait, func() bool { return h.last() == "2" })
	end1()
	r.clk.Advance(10 * time.Second)
	mctest.WaitFor(t, "renewal with 1", wait, func() bool { return h.last() == "1" })
	end2()
	mctest.WaitFor(t, "release", wait, func() bool { return h.last() == "0" })
	r.clk.Advance(30 * time.Second)
	r.quiet()
	if got := h.all(); got != "1 2 1 0" {
		t.Fatalf("Hold calls %q, want %q", got, "1 2 1 0")
	}
}

// recordingHolders records the sessions of every Hold call.
type recordingHolders struct {
	Holders
	mu    sync.Mutex
	holds []string
}

func (h *recordingHolders) Hold(ctx context.Context, key string, n int) error {
	h.mu.Lock()
	h.holds = append(h.holds, strconv.Itoa(n))
	h.mu.Unlock()
	return h.Holders.Hold(ctx, key, n)
}

func (h *recordingHolders) last() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.holds) == 0 {
		return ""
	}
	return h.holds[len(h.holds)-1]
}

func (h *recordingHolders) all() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.holds, " ")
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

func TestFailedSleepStaysIdleAndRetries(t *testing.T) {
	r := newRig(t, nil)
	f := &fakeTarget{key: key, sleepErr: errors.New("daemon gone")}
	r.c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}})
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "the failed sleep", wait, func() bool { return f.sleeps.Load() == 1 })
	r.quiet()
	if s := r.state(); s.Phase != PhaseIdle || !strings.Contains(s.Error, "daemon gone") {
		t.Fatalf("state %+v, want idle again with the error", s)
	}
	if n := r.log.Count(`"to"="awake"`); n != 0 {
		t.Fatalf("%d transitions to awake for a failed sleep, want 0", n)
	}
	f.mu.Lock()
	f.sleepErr = nil
	f.mu.Unlock()
	mctest.WaitFor(t, "a reopened period", wait, func() bool {
		l := r.c.holders.(*local)
		l.mu.Lock()
		defer l.mu.Unlock()
		return !l.claimed[key]
	})
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "the retried sleep", wait, func() bool { return r.c.Asleep(key) })
	if n := f.sleeps.Load(); n != 2 {
		t.Fatalf("%d sleep calls, want 2", n)
	}
}

func TestLoginDuringASleepCallWakesAfterIt(t *testing.T) {
	r := newRig(t, nil)
	f := &fakeTarget{key: key, sleepGate: make(chan struct{})}
	r.c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}})
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "the sleep call", wait, func() bool { return f.sleeps.Load() == 1 })
	ch := r.wakeAsync(context.Background(), readyNow)
	mctest.WaitFor(t, "the login to wait", wait, func() bool { return r.waiters() == 1 })
	if !r.c.Asleep(key) || r.state().Phase != PhaseWaking {
		t.Fatalf("state %+v during the sleep call, want waking (answered as asleep)", r.state())
	}
	if f.wakes.Load() != 0 {
		t.Fatal("wake called while the sleep call runs")
	}
	close(f.sleepGate)
	if res := recv(t, ch); res.err != nil || res.addr != backend {
		t.Fatalf("Wake = %q, %v", res.addr, res.err)
	}
	if f.wakes.Load() != 1 || f.overlap.Load() {
		t.Fatalf("%d wake calls (overlap %v), want 1 after the sleep", f.wakes.Load(), f.overlap.Load())
	}
	if s := r.state(); s.Sleeps != 1 || s.Wakes != 1 || s.Phase != PhaseIdle {
		t.Fatalf("state %+v, want 1 sleep, 1 wake, idle again", s)
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
