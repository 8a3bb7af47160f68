package wake

import (
	"fmt"
	"time"
)

// A failed wake call puts its target in backoff: until retryAt every login
// is turned away at once (Wake returns ErrBackoff, no engine call), and the
// first Wake after it makes the next call. The wait starts at
// Options.RetryWakeAfter and doubles with each failure in a row up to
// RetryWakeAtMost; anything that shows the target running (a wake call that
// succeeds, a session) ends the run of failures. So a failing engine (a
// command that exits 3, a webhook answering 4xx, a denied scale) costs one
// call and two log lines per backoff, however many players knock.

// tooSoon turns a Wake of t away while its backoff runs, counting it for the
// line that ends the backoff; nil means a flight may begin. Caller holds c.mu.
func (c *Coordinator) tooSoon(t *target, logs *[]change) error {
	now := c.now()
	if t.phase != backoff || !now.Before(t.retryAt) {
		return nil
	}
	t.turnedAway++
	c.fire(t, onTooSoon, logs)
	return fmt.Errorf("%w (next try in %v): %s", ErrBackoff, t.retryAt.Sub(now).Round(time.Millisecond), t.err)
}

// backoffStep keeps t's run of failures along step s: entering backoff
// counts a failure and sets retryAt, leaving it tells ch how many logins it
// turned away, and every phase but waking (a retry's flight) ends the run.
// Caller holds c.mu.
func (c *Coordinator) backoffStep(t *target, s step, ch *change) {
	switch {
	case s.to == backoff && s.from != backoff:
		t.failures++
		ch.retryIn = c.retryAfter
		for i := 1; i < t.failures && ch.retryIn < c.retryAtMost; i++ {
			ch.retryIn *= 2
		}
		ch.retryIn = min(ch.retryIn, c.retryAtMost)
		t.retryAt = c.now().Add(ch.retryIn)
	case s.from == backoff && s.to != backoff:
		ch.turnedAway, t.turnedAway = t.turnedAway, 0
	}
	if s.to != backoff && s.to != waking {
		t.failures, t.retryAt = 0, time.Time{}
	}
}
