package mctest

import (
	"sync"
	"time"
)

// TimerClock is a fake clock with timers: AfterFunc schedules on it, and
// Advance runs every timer that falls due, in due order, each with Now set to
// its due time. Safe for concurrent use. Timer funcs run synchronously in the
// goroutine that calls Advance, with no lock of the clock held, so they may
// call AfterFunc and Now.
type TimerClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers map[uint64]*clockTimer
}

type clockTimer struct {
	at  time.Time
	seq uint64
	f   func()
}

// NewTimerClock returns a clock at start (at a fixed instant in 2025 if start is zero).
func NewTimerClock(start time.Time) *TimerClock {
	if start.IsZero() {
		start = epoch
	}
	return &TimerClock{now: start, timers: map[uint64]*clockTimer{}}
}

// Now is the clock's time; pass the method value as an injected now func.
func (c *TimerClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc runs f once the clock has advanced by d; stop cancels it and
// reports whether it was still pending (time.Timer.Stop's meaning).
func (c *TimerClock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	id := c.seq
	c.timers[id] = &clockTimer{at: c.now.Add(d), seq: id, f: f}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, pending := c.timers[id]
		delete(c.timers, id)
		return pending
	}
}

// Pending is how many timers wait to fire.
func (c *TimerClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the clock forward by d, running every timer due by then
// (including timers that those timers schedule within d), earliest first and
// in creation order among equals.
func (c *TimerClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	for {
		var next *clockTimer
		for _, t := range c.timers {
			if !t.at.After(end) && (next == nil || t.at.Before(next.at) || t.at.Equal(next.at) && t.seq < next.seq) {
				next = t
			}
		}
		if next == nil {
			break
		}
		delete(c.timers, next.seq)
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
		c.mu.Lock()
	}
	c.now = end
	c.mu.Unlock()
}
