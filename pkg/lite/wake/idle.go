package wake

import (
	"context"
	"fmt"
	"time"
)

// maybeIdle starts the idle countdown when its conditions hold: the target
// is awake, nobody holds a session here, no wake or sleep is under way, the
// newest players.online is 0 or unknown, and IdleAfter is set. An unknown
// count starts it so that an awake target nobody ever joins (or whose
// backends never answer) still goes to sleep; a report > 0 within IdleAfter
// cancels it. Caller holds c.mu.
func (c *Coordinator) maybeIdle(t *target, logs *[]transition) {
	if c.closed || t.dropped || t.phase != PhaseAwake || t.sessions > 0 || t.players > 0 ||
		t.flight != nil || t.sleeping || t.bind.IdleAfter <= 0 {
		return
	}
	c.setPhase(t, PhaseIdle, logs)
	c.armIdle(t, t.bind.IdleAfter)
}

// armIdle (re)starts t's countdown of d. Caller holds c.mu.
func (c *Coordinator) armIdle(t *target, d time.Duration) {
	c.stopCountdown(t)
	t.sleepAt = c.now().Add(d)
	gen := t.idleGen
	t.stopIdle = c.afterFunc(d, func() { c.idleEnded(t, gen) })
}

// stopCountdown stops t's countdown, if any, leaving the phase alone. Caller
// holds c.mu.
func (c *Coordinator) stopCountdown(t *target) {
	t.idleGen++
	if t.stopIdle != nil {
		t.stopIdle()
		t.stopIdle = nil
	}
	t.sleepAt = time.Time{}
}

// cancelIdle ends an idle countdown because someone came: idle becomes
// awake. Caller holds c.mu.
func (c *Coordinator) cancelIdle(t *target, logs *[]transition) {
	if t.phase != PhaseIdle {
		return
	}
	c.stopCountdown(t)
	c.setPhase(t, PhaseAwake, logs)
}

// idleEnded runs when a countdown of generation gen ends.
func (c *Coordinator) idleEnded(t *target, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || t.dropped || gen != t.idleGen || t.phase != PhaseIdle || t.sleeping {
		return
	}
	t.stopIdle = nil
	t.sleeping = true
	t.events++
	c.wg.Add(1)
	go c.sleep(t)
}

// sleep claims the sleep from Holders and, if granted and nobody came
// meanwhile, calls Target.Sleep once. A refused or failed claim re-arms the
// countdown, so the claim is retried every IdleAfter while the target stays
// idle here (another replica that slept it has claimed this period, so the
// retries stay refused until the next wake).
func (c *Coordinator) sleep(t *target) {
	defer c.wg.Done()
	t.engine.Lock()
	defer t.engine.Unlock()

	// The release of the last session must reach Holders before the claim,
	// or the claim would see this replica's own stale hold.
	c.mu.Lock()
	held := t.holdDone
	c.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-c.ctx.Done():
			return // closed; nothing reads t any more
		}
	}

	ctx, cancel := context.WithTimeout(c.ctx, c.callTimeout)
	c.mu.Lock()
	quiet := t.bind.IdleAfter
	c.mu.Unlock()
	granted, err := c.holders.ClaimSleep(ctx, t.key, quiet)
	cancel()
	c.m.call(t.key, "claim", claimResult(granted, err))

	var logs []transition
	c.mu.Lock()
	if err != nil || !granted || c.closed || t.dropped || t.phase != PhaseIdle {
		t.sleeping = false
		if err != nil {
			t.err = fmt.Sprintf("claim sleep: %v", err)
		}
		if t.phase == PhaseIdle && !c.closed && !t.dropped {
			c.armIdle(t, t.bind.IdleAfter)
		}
		c.maybeIdle(t, &logs)
		c.mu.Unlock()
		c.logTransitions(logs)
		if err != nil && c.ctx.Err() == nil {
			c.log.Error(err, "claim the sleep of wake target", "target", t.key)
		}
		if granted && err == nil {
			// Claimed, but someone came: reopen the period so that a later
			// sleep can be claimed.
			c.recordWoke(t.key)
		}
		return
	}
	tgt, req := t.bind.Target, t.bind.Request
	c.mu.Unlock()

	start := c.now()
	err = tgt.Sleep(c.ctx, req)
	c.m.call(t.key, "sleep", callResult(err))

	if err != nil {
		// The target still runs: open a new period so that the retry may claim.
		c.recordWoke(t.key)
	}
	c.mu.Lock()
	t.sleeping = false
	if err != nil {
		t.err = fmt.Sprintf("sleep: %v", err)
		if t.phase == PhaseIdle && !c.closed && !t.dropped {
			c.armIdle(t, t.bind.IdleAfter) // retried after another IdleAfter
		}
	} else {
		t.sleeps++
		t.err = ""
		t.players = -1
		c.stopCountdown(t)
		if t.phase != PhaseWaking { // a wake queued behind this sleep keeps its phase
			c.setPhase(t, PhaseAsleep, &logs)
		}
	}
	c.mu.Unlock()
	c.logTransitions(logs)
	if err != nil && c.ctx.Err() == nil {
		c.log.Error(err, "put wake target to sleep", "target", t.key, "took", c.now().Sub(start))
	}
}

// recordWoke tells Holders that a new period began. Callers hold t.engine,
// which orders it before any later claim.
func (c *Coordinator) recordWoke(key string) {
	ctx, cancel := context.WithTimeout(c.ctx, c.callTimeout)
	defer cancel()
	if err := c.holders.Woke(ctx, key); err != nil && c.ctx.Err() == nil {
		c.log.Error(err, "record the wake of wake target", "target", key)
	}
}

// woke calls recordWoke in the background, for a target found running
// without a wake call of ours.
func (c *Coordinator) woke(t *target) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t.engine.Lock()
		defer t.engine.Unlock()
		c.recordWoke(t.key)
	}()
}

func callResult(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

func claimResult(granted bool, err error) string {
	switch {
	case err != nil:
		return "error"
	case granted:
		return "granted"
	}
	return "refused"
}
