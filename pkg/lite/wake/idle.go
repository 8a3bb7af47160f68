package wake

import (
	"context"
	"fmt"
	"time"
)

// maybeIdle takes the onQuiet step when nobody is here: no session here,
// the newest players.online is 0 or unknown, and IdleAfter is set. An awake
// target then starts its countdown (see enter). An unknown
// count counts as nobody so that an awake target nobody ever joins (or whose
// backends never answer) still goes to sleep; a report > 0 within IdleAfter
// cancels it. Caller holds c.mu.
func (c *Coordinator) maybeIdle(t *target, logs *[]change) {
	if c.closed || t.dropped || t.sessions > 0 || t.players > 0 || t.bind.IdleAfter <= 0 {
		return
	}
	c.fire(t, onQuiet, logs)
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

// idleEnded runs when a countdown of generation gen ends. Every step out of
// idle stops the countdown, so a current generation means t is idle.
func (c *Coordinator) idleEnded(t *target, gen uint64) {
	var logs []change
	c.mu.Lock()
	if !c.closed && !t.dropped && gen == t.idleGen && c.fire(t, onCountdownEnd, &logs) {
		t.events++
		c.wg.Add(1)
		go c.sleep(t)
	}
	c.mu.Unlock()
	c.logChanges(logs)
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
	if !c.released(t) {
		return // closed; nothing reads t any more
	}
	if tgt, req, ok := c.claim(t); ok {
		c.callSleep(t, tgt, req)
	}
}

// released waits until the release of t's last session has reached Holders,
// or the claim would see this replica's own stale hold. False means the
// Coordinator closed.
func (c *Coordinator) released(t *target) bool {
	c.mu.Lock()
	held := t.holdDone
	c.mu.Unlock()
	if held == nil {
		return true
	}
	select {
	case <-held:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// claim asks Holders for the sleep of t. It gives the call to make when the
// claim is granted and t is still sleeping (nobody came, not closed; a
// reload that drops t moves it out of sleeping); otherwise it takes the
// denial's step.
func (c *Coordinator) claim(t *target) (Target, Request, bool) {
	c.mu.Lock()
	quiet := t.bind.IdleAfter
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.ctx, c.callTimeout)
	granted, err := c.holders.ClaimSleep(ctx, t.key, quiet)
	cancel()
	c.m.call(t.name, "claim", claimResult(granted, err))

	var logs []change
	c.mu.Lock()
	goOn := err == nil && granted && !c.closed && t.phase == sleeping
	tgt, req := t.bind.Target, t.bind.Request
	if !goOn {
		if err != nil {
			t.err = fmt.Sprintf("claim sleep: %v", err)
		}
		c.fire(t, onClaimDenied, &logs)
		c.maybeIdle(t, &logs)
	}
	c.mu.Unlock()
	c.logChanges(logs)
	switch {
	case goOn:
	case err != nil && c.ctx.Err() == nil:
		c.log.Error(err, "claim the sleep of wake target", "target", t.name)
	case granted && err == nil:
		// Claimed, but someone came: reopen the period so that a later
		// sleep can be claimed.
		c.recordWoke(t)
	}
	return tgt, req, goOn
}

// callSleep makes the engine's sleep call and takes its outcome's step.
func (c *Coordinator) callSleep(t *target, tgt Target, req Request) {
	start := c.now()
	err := tgt.Sleep(c.ctx, req)
	c.m.call(t.name, "sleep", callResult(err))
	if err != nil {
		// The target still runs: open a new period so that the retry may claim.
		c.recordWoke(t)
	}
	var logs []change
	c.mu.Lock()
	if err != nil {
		t.err = fmt.Sprintf("sleep: %v", err)
		c.fire(t, onSleepFailed, &logs)
	} else {
		t.sleeps++
		t.err = ""
		t.players = -1
		c.fire(t, onSleepDone, &logs)
	}
	c.mu.Unlock()
	c.logChanges(logs)
	if err != nil && c.ctx.Err() == nil {
		c.log.Error(err, "put wake target to sleep", "target", t.name, "took", c.now().Sub(start))
	}
}

// recordWoke tells Holders that a new period began. Callers hold t.engine,
// which orders it before any later claim.
func (c *Coordinator) recordWoke(t *target) {
	ctx, cancel := context.WithTimeout(c.ctx, c.callTimeout)
	defer cancel()
	if err := c.holders.Woke(ctx, t.key); err != nil && c.ctx.Err() == nil {
		c.log.Error(err, "record the wake of wake target", "target", t.name)
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
		c.recordWoke(t)
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
