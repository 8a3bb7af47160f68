package wake

import (
	"context"
	"sync"
)

// Session marks one player session to key; the returned func ends it and is
// idempotent. The first session cancels the idle countdown and holds the
// target in Holders at once; the hold is renewed every RenewEvery while
// sessions remain and dropped (Hold 0) when the last one ends. A session to a
// target thought asleep proves it runs: it becomes awake and Holders records
// a wake. An unbound key gives a func that does nothing.
func (c *Coordinator) Session(key string) (end func()) {
	var logs []change
	c.mu.Lock()
	t := c.targets[key]
	if t == nil || c.closed {
		c.mu.Unlock()
		return func() {}
	}
	t.sessions++
	t.events++
	woke := false
	if t.sessions == 1 {
		// It ran after all: the step makes it awake.
		woke = t.phase == asleep || t.phase == backoff
		c.fire(t, onSession, &logs)
		c.hold(t, 1)
		c.armRenew(t)
	}
	c.mu.Unlock()
	c.logChanges(logs)
	if woke {
		c.woke(t)
	}
	var once sync.Once
	return func() { once.Do(func() { c.endSession(t) }) }
}

func (c *Coordinator) endSession(t *target) {
	var logs []change
	c.mu.Lock()
	t.sessions--
	if t.sessions == 0 {
		c.stopRenewal(t)
		c.hold(t, 0)
		if t.dropped && c.dropped[t.key] == t {
			delete(c.dropped, t.key)
			c.forget(t)
		}
		c.maybeIdle(t, &logs)
	}
	c.mu.Unlock()
	c.logChanges(logs)
}

// armRenew schedules the next renewal of t's hold. Caller holds c.mu.
func (c *Coordinator) armRenew(t *target) {
	c.stopRenewal(t)
	gen := t.renewGen
	t.stopRenew = c.afterFunc(c.renewEvery, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed || gen != t.renewGen || t.sessions == 0 {
			return
		}
		c.hold(t, t.sessions)
		c.armRenew(t)
	})
}

// stopRenewal stops t's renewals. Caller holds c.mu.
func (c *Coordinator) stopRenewal(t *target) {
	t.renewGen++
	if t.stopRenew != nil {
		t.stopRenew()
		t.stopRenew = nil
	}
}

// hold asks for Holders.Hold(t.key, n). One goroutine per target makes the
// calls one after another, so a renewal never overtakes the release that
// followed it; requests made while a call runs collapse into the newest.
// Caller holds c.mu.
func (c *Coordinator) hold(t *target, n int) {
	t.holdWant, t.holdDirty = n, true
	if t.holdActive || c.closed {
		return
	}
	t.holdActive = true
	t.holdDone = make(chan struct{})
	c.wg.Add(1)
	go c.holdLoop(t)
}

func (c *Coordinator) holdLoop(t *target) {
	defer c.wg.Done()
	for {
		c.mu.Lock()
		if !t.holdDirty || c.closed {
			t.holdActive = false
			close(t.holdDone)
			t.holdDone = nil
			c.mu.Unlock()
			return
		}
		n := t.holdWant
		t.holdDirty = false
		c.mu.Unlock()

		ctx, cancel := context.WithTimeout(c.ctx, c.callTimeout)
		err := c.holders.Hold(ctx, t.key, n)
		cancel()
		if err != nil && c.ctx.Err() == nil {
			c.log.Error(err, "hold wake target", "target", t.name, "sessions", n)
		}
	}
}
