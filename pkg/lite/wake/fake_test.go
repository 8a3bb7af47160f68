package wake

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

const (
	refusedLine = "undefined phase transition refused"
	key         = "docker mc"
	backend     = "127.0.0.1:25565"
	wait        = 10 * time.Second
)

// fakeTarget counts the engine calls; Wake can block on a gate, fail, or
// take (virtual) time.
type fakeTarget struct {
	key    string
	wakes  atomic.Int64
	sleeps atomic.Int64

	mu        sync.Mutex
	gate      chan struct{} // Wake waits for it when non-nil
	sleepGate chan struct{} // Sleep waits for it when non-nil
	inCall    atomic.Int32  // Wake and Sleep calls under way
	overlap   atomic.Bool   // two calls ran at once
	wakeErr   error
	sleepErr  error
	takes     []time.Duration // each Wake advances clk by the next one
	clk       *mctest.TimerClock
	running   *bool         // non-nil: the target is an Observer answering this
	runGate   chan struct{} // Running waits for it when non-nil
}

func (f *fakeTarget) Key() string { return f.key }

func (f *fakeTarget) enter() func() {
	if f.inCall.Add(1) > 1 {
		f.overlap.Store(true)
	}
	return func() { f.inCall.Add(-1) }
}

func (f *fakeTarget) Wake(ctx context.Context, _ Request) (Result, error) {
	defer f.enter()()
	f.wakes.Add(1)
	f.mu.Lock()
	gate, err := f.gate, f.wakeErr
	var take time.Duration
	if len(f.takes) > 0 {
		take, f.takes = f.takes[0], f.takes[1:]
	}
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	if take > 0 {
		f.clk.Advance(take)
	}
	return Result{}, err
}

func (f *fakeTarget) Sleep(ctx context.Context, _ Request) error {
	defer f.enter()()
	f.sleeps.Add(1)
	f.mu.Lock()
	gate, err := f.sleepGate, f.sleepErr
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}

// observerTarget is a fakeTarget whose engine says whether it runs.
type observerTarget struct{ *fakeTarget }

func (o observerTarget) Running(ctx context.Context) (bool, error) {
	o.mu.Lock()
	gate := o.runGate
	o.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return *o.running, nil
}

// rig is one Coordinator on a fake clock.
type rig struct {
	t   *testing.T
	clk *mctest.TimerClock
	c   *Coordinator
	log *mctest.Logs
}

func newRig(t *testing.T, h Holders) *rig {
	t.Helper()
	clk := mctest.NewTimerClock(time.Time{})
	logs := &mctest.Logs{}
	c := NewCoordinator(Options{Holders: h, Log: logs.Logger(0), Now: clk.Now, AfterFunc: clk.AfterFunc})
	t.Cleanup(func() { // after Close: every test also proves no step was refused
		for _, line := range logs.Find(refusedLine) {
			t.Errorf("refused: %s", line)
		}
	})
	t.Cleanup(c.Close)
	return &rig{t: t, clk: clk, c: c, log: logs}
}

// asleepTarget binds a target whose engine says it is stopped and waits
// until the Coordinator believes it.
func (r *rig) asleepTarget(idleAfter time.Duration) *fakeTarget {
	r.t.Helper()
	no := false
	f := &fakeTarget{key: key, clk: r.clk, running: &no}
	r.c.Bind([]Binding{{Target: observerTarget{f}, IdleAfter: idleAfter}})
	mctest.WaitFor(r.t, "the observer's answer", wait, func() bool { return r.c.Asleep(key) })
	return f
}

func (r *rig) state() State {
	r.t.Helper()
	for _, s := range r.c.States() {
		if s.Key == key {
			return s
		}
	}
	r.t.Fatalf("no state for %q", key)
	return State{}
}

// waiters is how many callers wait on the key's flight now.
func (r *rig) waiters() int {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if t := r.c.targets[key]; t != nil && t.flight != nil {
		return t.flight.waiters
	}
	return 0
}

// drive advances the clock 100ms at a time until cond holds (the readiness
// poll's timers fire only when the clock moves).
func (r *rig) drive(what string, cond func() bool) {
	r.t.Helper()
	mctest.WaitFor(r.t, what, wait, func() bool {
		if cond() {
			return true
		}
		r.clk.Advance(100 * time.Millisecond)
		return false
	})
}

// quiet waits until no sleep, flight or hold call of the key is under way.
func (r *rig) quiet() {
	r.t.Helper()
	mctest.WaitFor(r.t, "background calls to end", wait, func() bool {
		r.c.mu.Lock()
		defer r.c.mu.Unlock()
		t := r.c.targets[key]
		return t == nil || !callsUnderWay(t)
	})
}

// callsUnderWay says whether t has a sleep, wake or hold call under way.
// Caller holds the Coordinator's mu.
func callsUnderWay(t *target) bool {
	return t.phase == sleeping || t.phase == interrupted || t.flight != nil || t.holdActive
}

func readyNow(context.Context, Result) (string, bool) { return backend, true }

// result is one Wake call's outcome.
type result struct {
	addr string
	err  error
}

func (r *rig) wakeAsync(ctx context.Context, ready func(context.Context, Result) (string, bool)) <-chan result {
	ch := make(chan result, 1)
	go func() {
		addr, err := r.c.Wake(ctx, key, Request{ServerAddress: "mc.example"}, ready)
		ch <- result{addr, err}
	}()
	return ch
}

func recv(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(wait):
		t.Fatal("Wake did not return")
		return result{}
	}
}
