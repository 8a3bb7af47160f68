package wake

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

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
