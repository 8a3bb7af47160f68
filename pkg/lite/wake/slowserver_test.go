package wake

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// A target thought awake whose server is too busy for the first readiness check
// (every player a long hold parked arrives at once just after it started): its
// engine says it runs, so the Coordinator polls until the server answers and
// makes no second wake call; the backend that answered is then Warming.
func TestSlowServerOfARunningEngineIsPolledNotWokenAgain(t *testing.T) {
	for _, running := range []bool{true, false} {
		r := newRig(t, nil)
		f := &fakeTarget{key: key, clk: r.clk, running: &running}
		r.c.Bind([]Binding{{Target: observerTarget{f}}})
		if running {
			r.quiet() // the Observer's answer at Bind: awake
		} else {
			// Thought awake (no Observer answer yet counts): the engine stopped it
			// behind our back.
			f.mu.Lock()
			f.runGate = make(chan struct{})
			f.mu.Unlock()
		}
		var checks atomic.Int64
		ready := func(context.Context, Result) (string, bool) { return backend, checks.Add(1) >= 4 }
		ch := r.wakeAsync(context.Background(), ready)
		if !running {
			f.mu.Lock()
			close(f.runGate)
			f.runGate = nil
			f.mu.Unlock()
		}
		var res result
		r.drive("the flight to land", func() bool {
			select {
			case res = <-ch:
				return true
			default:
				return false
			}
		})
		if res.err != nil || res.addr != backend {
			t.Fatalf("running=%v: Wake = %q, %v; want %q", running, res.addr, res.err, backend)
		}
		addr, _, ok := r.c.Warming(key)
		switch {
		case running && (f.wakes.Load() != 0 || !ok || addr != backend):
			t.Errorf("engine runs: %d wake calls, Warming %q %v; want 0 calls and %q", f.wakes.Load(), addr, ok, backend)
		case !running && f.wakes.Load() != 1:
			t.Errorf("engine stopped: %d wake calls, want 1", f.wakes.Load())
		}
		if s := r.state(); s.Phase != PhaseAwake {
			t.Errorf("running=%v: phase %q, want awake", running, s.Phase)
		}
	}
}

// A route whose players may wait longer than the Coordinator's readiness bound (a
// long hold of 6 minutes against 5) keeps its wake's poll going that long: the
// server that answers at 5m30s is found by the poll, and its parked players are
// sent on then, not when their park runs out.
func TestBindingsLongerWaitBoundsThePoll(t *testing.T) {
	r := newRig(t, nil)
	r.c.readyWithin = 5 * time.Minute
	no := false
	f := &fakeTarget{key: key, clk: r.clk, running: &no}
	r.c.Bind([]Binding{{Target: observerTarget{f}, ReadyWithin: 6 * time.Minute}})
	mctest.WaitFor(t, "the observer's answer", wait, func() bool { return r.c.Asleep(key) })
	start := r.clk.Now()
	upAt := start.Add(5*time.Minute + 30*time.Second)
	ready := func(context.Context, Result) (string, bool) { return backend, !r.clk.Now().Before(upAt) }
	ch := r.wakeAsync(context.Background(), ready)
	var res result
	mctest.WaitFor(t, "the flight to land", wait, func() bool {
		select {
		case res = <-ch:
			return true
		default:
			r.clk.Advance(time.Second)
			return false
		}
	})
	if res.err != nil || res.addr != backend {
		t.Fatalf("Wake = %q, %v after %v; want %q once up at 5m30s", res.addr, res.err, r.clk.Now().Sub(start), backend)
	}
	if f.wakes.Load() != 1 {
		t.Fatalf("%d wake calls, want 1", f.wakes.Load())
	}
}
