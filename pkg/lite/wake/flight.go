package wake

import (
	"context"
	"fmt"
	"time"
)

// flight is one shared wake of a target: every Wake of its key while it is
// under way joins it.
type flight struct {
	done    chan struct{} // closed once addr and err are set
	addr    string
	err     error
	waiters int // callers still waiting (tests read it)
}

// Wake wakes the target if needed and waits until ready reports a backend
// that answered a status exchange, or ctx ends.
//
// Concurrent calls for one key share one flight: at most one Target.Wake call
// and one readiness poll, which use the req and ready of the call that began
// it. ctx bounds only this caller's wait: the shared wake goes on for the
// others, and its poll for up to Options.ReadyWithin. ready is first called
// right after the wake call, then with backoff from 100ms doubling to 1s.
//
// A target asleep (or being put to sleep) is woken at once. For one thought
// awake, ready is asked first and Target.Wake is called only if it fails (its
// engine may have stopped it behind our back); such a flight measures no wake
// time. A failed wake call returns its error promptly to every caller and
// leaves the target asleep with the error in State.Error.
//
// The address returned is the one ready named, else the Result.Backend of the
// wake call ("" means: the route's own backends). ready must bound its own
// probe (its ctx ends only when the Coordinator closes). Package lite calls
// Wake for a target that is Asleep, or whose backends all failed to dial.
func (c *Coordinator) Wake(ctx context.Context, key string, req Request, ready func(ctx context.Context, r Result) (addr string, ok bool)) (string, error) {
	var logs []transition
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return "", ErrClosed
	}
	t := c.targets[key]
	if t == nil {
		c.mu.Unlock()
		return "", fmt.Errorf("%w: %q", ErrUnbound, key)
	}
	f := t.flight
	if f == nil {
		f = &flight{done: make(chan struct{})}
		t.flight = f
		t.events++
		mustWake := t.phase == PhaseAsleep || t.sleeping
		if mustWake {
			c.stopCountdown(t)
			c.setPhase(t, PhaseWaking, &logs)
		} else {
			c.cancelIdle(t, &logs) // a player is coming
		}
		c.wg.Add(1)
		go c.fly(t, f, mustWake, req, ready)
	}
	f.waiters++
	c.mu.Unlock()
	c.logTransitions(logs)

	select {
	case <-f.done:
		return f.addr, f.err
	case <-ctx.Done():
		c.mu.Lock()
		f.waiters--
		c.mu.Unlock()
		return "", fmt.Errorf("wait for wake target %s: %w", key, ctx.Err())
	}
}

// fly runs one flight to its end.
func (c *Coordinator) fly(t *target, f *flight, mustWake bool, req Request, ready func(context.Context, Result) (string, bool)) {
	defer c.wg.Done()
	if !mustWake {
		if addr, ok := ready(c.ctx, Result{}); ok {
			c.land(t, f, landing{addr: addr})
			return
		}
		var logs []transition
		c.mu.Lock()
		c.setPhase(t, PhaseWaking, &logs)
		c.mu.Unlock()
		c.logTransitions(logs)
	}

	t.engine.Lock()
	c.mu.Lock()
	tgt := t.bind.Target
	c.mu.Unlock()
	start := c.now()
	res, err := tgt.Wake(c.ctx, req)
	c.m.call(t.key, "wake", callResult(err))
	if err == nil {
		// Before any claim (claims take t.engine too): a claim of the old
		// period must not be mistaken for one of this.
		c.recordWoke(t.key)
	}
	t.engine.Unlock()
	if err != nil {
		if c.ctx.Err() != nil {
			c.land(t, f, landing{err: ErrClosed, closed: true})
			return
		}
		c.land(t, f, landing{err: fmt.Errorf("wake %s: %w", t.key, err), failed: true})
		return
	}
	c.mu.Lock()
	t.wakes++
	c.mu.Unlock()

	backoff := 100 * time.Millisecond
	for {
		if addr, ok := ready(c.ctx, res); ok {
			if addr == "" {
				addr = res.Backend
			}
			c.land(t, f, landing{addr: addr, took: c.now().Sub(start), measured: true})
			return
		}
		if c.ctx.Err() != nil {
			c.land(t, f, landing{err: ErrClosed, closed: true})
			return
		}
		if waited := c.now().Sub(start); waited >= c.readyWithin {
			c.land(t, f, landing{err: fmt.Errorf("%w: %s after %v", ErrNotReady, t.key, waited)})
			return
		}
		if !c.wait(backoff) {
			c.land(t, f, landing{err: ErrClosed, closed: true})
			return
		}
		backoff = min(2*backoff, time.Second)
	}
}

// landing is how a flight ended.
type landing struct {
	addr     string
	err      error
	took     time.Duration
	measured bool // took is a wake's call-to-ready time
	failed   bool // the wake call failed: the target stays asleep
	closed   bool
}

// land ends flight f of t: records the outcome and releases its waiters.
func (c *Coordinator) land(t *target, f *flight, l landing) {
	var logs []transition
	c.mu.Lock()
	t.flight = nil
	switch {
	case l.closed:
	case l.failed:
		t.err = l.err.Error()
		c.setPhase(t, PhaseAsleep, &logs)
	case l.err != nil: // not ready in time: the engine runs it, so the countdown may put it back
		t.err = l.err.Error()
		t.players = -1
		c.setPhase(t, PhaseAwake, &logs)
	default:
		if l.measured {
			t.lastWake = l.took
			t.recent = append(t.recent, l.took)
			if len(t.recent) > typicalOf {
				t.recent = t.recent[1:]
			}
			t.err = ""
			t.players = -1
			c.m.took(t.key, l.took)
		}
		c.setPhase(t, PhaseAwake, &logs)
	}
	c.maybeIdle(t, &logs)
	f.addr, f.err = l.addr, l.err
	c.mu.Unlock()
	c.logTransitions(logs)
	close(f.done) // after the log lines, so that they precede what callers do next
}

// wait waits d on the injected clock; false means the Coordinator closed.
func (c *Coordinator) wait(d time.Duration) bool {
	ch := make(chan struct{})
	stop := c.afterFunc(d, func() { close(ch) })
	select {
	case <-ch:
		return true
	case <-c.ctx.Done():
		stop()
		return false
	}
}
