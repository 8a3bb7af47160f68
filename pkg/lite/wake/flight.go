package wake

import (
	"context"
	"errors"
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

// Errors Wake returns, checked with errors.Is.
var (
	// ErrUnbound: no Binding names the key (a reload dropped it, or it never was).
	ErrUnbound = errors.New("wake: no such target")
	// ErrClosed: the Coordinator was closed while the call waited.
	ErrClosed = errors.New("wake: coordinator closed")
	// ErrNotReady: the engine accepted the wake but no backend answered a
	// status exchange within Options.ReadyWithin.
	ErrNotReady = errors.New("wake: target not ready")
	// ErrBackoff: a wake call of the target failed a moment ago; the login
	// is turned away without another (backoff.go).
	ErrBackoff = errors.New("wake: backing off after a failed wake call")
)

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
// leaves the target asleep with the error in State.Error, in backoff: until
// State.RetryAt, Wake returns ErrBackoff at once without a call.
//
// The address returned is the one ready named, else the Result.Backend of the
// wake call ("" means: the route's own backends). ready must bound its own
// probe (its ctx ends only when the Coordinator closes). Package lite calls
// Wake for a target that is Asleep, or whose backends all failed to dial.
func (c *Coordinator) Wake(ctx context.Context, key string, req Request, ready func(ctx context.Context, r Result) (addr string, ok bool)) (string, error) {
	var logs []change
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return "", ErrClosed
	}
	t := c.targets[key]
	if t == nil {
		c.mu.Unlock()
		return "", fmt.Errorf("%w: %s", ErrUnbound, Name(key))
	}
	f := t.flight
	if f == nil {
		if err := c.tooSoon(t, &logs); err != nil {
			c.mu.Unlock()
			c.logChanges(logs)
			return "", err
		}
		f = &flight{done: make(chan struct{})}
		t.flight = f
		t.events++
		c.fire(t, onWake, &logs)
		c.wg.Add(1)
		go c.fly(t, f, t.phase == waking, req, ready)
	}
	f.waiters++
	c.mu.Unlock()
	c.logChanges(logs)

	select {
	case <-f.done:
		return f.addr, f.err
	case <-ctx.Done():
		c.mu.Lock()
		f.waiters--
		c.mu.Unlock()
		return "", fmt.Errorf("wait for wake target %s: %w", t.name, ctx.Err())
	}
}

// fly runs one flight to its end: a target thought awake is first asked
// whether it is ready; otherwise the engine wakes it and ready is polled.
func (c *Coordinator) fly(t *target, f *flight, mustWake bool, req Request, ready func(context.Context, Result) (string, bool)) {
	defer c.wg.Done()
	if !mustWake {
		if addr, ok := ready(c.ctx, Result{}); ok {
			c.land(t, f, landing{on: onReady, addr: addr})
			return
		}
		if c.engineRuns(t) {
			// Its server is slow, not stopped (a burst of logins just after it
			// started): another wake call would not make it answer sooner.
			l := c.poll(t, c.now(), Result{}, ready)
			l.measured = false
			c.land(t, f, l)
			return
		}
		var logs []change
		c.mu.Lock()
		c.fire(t, onNotRunning, &logs)
		c.mu.Unlock()
		c.logChanges(logs)
	}
	res, start, err := c.callWake(t, req)
	switch {
	case err == nil:
		c.land(t, f, c.poll(t, start, res, ready))
	case c.ctx.Err() != nil:
		c.land(t, f, landing{err: ErrClosed})
	default:
		c.land(t, f, landing{on: onWakeFailed, err: fmt.Errorf("wake %s: %w", t.name, err)})
	}
}

// engineRuns asks an Observer target's engine whether it runs; a target that
// cannot say, or an error, is "no": the caller wakes it as before.
func (c *Coordinator) engineRuns(t *target) bool {
	c.mu.Lock()
	obs, ok := t.bind.Target.(Observer)
	c.mu.Unlock()
	if !ok {
		return false
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.callTimeout)
	defer cancel()
	running, err := obs.Running(ctx)
	return err == nil && running
}

// callWake makes the engine's wake call, under t.engine, and says when it
// began (after any sleep call it waited for).
func (c *Coordinator) callWake(t *target, req Request) (Result, time.Time, error) {
	t.engine.Lock()
	defer t.engine.Unlock()
	c.mu.Lock()
	tgt := t.bind.Target
	c.mu.Unlock()
	start := c.now()
	res, err := tgt.Wake(c.ctx, req)
	c.m.call(t.name, "wake", callResult(err))
	if err != nil {
		return res, start, err
	}
	// Before any claim (claims take t.engine too): a claim of the old period
	// must not be mistaken for one of this.
	c.recordWoke(t)
	c.mu.Lock()
	t.wakes++
	c.mu.Unlock()
	return res, start, nil
}

// poll asks ready until it names a backend, backing off from 100ms to 1s,
// for up to ReadyWithin (the Coordinator's, or the Binding's if longer) from
// start.
func (c *Coordinator) poll(t *target, start time.Time, res Result, ready func(context.Context, Result) (string, bool)) landing {
	backoff := 100 * time.Millisecond
	c.mu.Lock()
	within := max(c.readyWithin, t.bind.ReadyWithin)
	c.mu.Unlock()
	for {
		if addr, ok := ready(c.ctx, res); ok {
			if addr == "" {
				addr = res.Backend
			}
			return landing{on: onReady, addr: addr, took: c.now().Sub(start), measured: true, polled: true}
		}
		if c.ctx.Err() != nil {
			return landing{err: ErrClosed}
		}
		if waited := c.now().Sub(start); waited >= within {
			return landing{on: onNotReady, err: fmt.Errorf("%w: %s after %v", ErrNotReady, t.name, waited)}
		}
		if !c.wait(backoff) {
			return landing{err: ErrClosed}
		}
		backoff = min(2*backoff, time.Second)
	}
}

// landing is how a flight ended.
type landing struct {
	on       event // onReady, onWakeFailed or onNotReady; 0: the Coordinator closed
	addr     string
	err      error
	took     time.Duration
	measured bool // took is a wake's call-to-ready time
	polled   bool // ready failed at first: the server has just come up, or was slow
}

// land ends flight f of t: records the outcome and releases its waiters.
func (c *Coordinator) land(t *target, f *flight, l landing) {
	var logs []change
	c.mu.Lock()
	t.flight = nil
	switch l.on {
	case onReady:
		if l.measured {
			c.measured(t, l.took)
		}
		if l.polled {
			t.readyAddr, t.readyAt = l.addr, c.now()
		}
	case onWakeFailed:
		t.err = l.err.Error()
	case onNotReady:
		t.err = l.err.Error()
		t.players = -1
	}
	if l.on != 0 {
		c.fire(t, l.on, &logs)
	}
	c.maybeIdle(t, &logs)
	f.addr, f.err = l.addr, l.err
	c.mu.Unlock()
	c.logChanges(logs)
	close(f.done) // after the log lines, so that they precede what callers do next
}

// measured records a wake's call-to-ready time. Caller holds c.mu.
func (c *Coordinator) measured(t *target, took time.Duration) {
	t.lastWake = took
	t.recent = append(t.recent, took)
	if len(t.recent) > typicalOf {
		t.recent = t.recent[1:]
	}
	t.err = ""
	t.players = -1
	c.m.took(t.name, took)
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

// Warming names the backend a readiness poll of key last found answering,
// and when: a server that has just started (or was too slow for the first
// check) answers its first burst of logins slowly. ok is false if no poll
// found one.
func (c *Coordinator) Warming(key string) (addr string, at time.Time, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.targets[key]
	if t == nil || t.readyAt.IsZero() {
		return "", time.Time{}, false
	}
	return t.readyAddr, t.readyAt, true
}
