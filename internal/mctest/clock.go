package mctest

import (
	"sync"
	"time"
)

// epoch is where NewClock starts when given the zero time; any fixed instant works.
var epoch = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// Clock is a fake clock that moves only when a test moves it. It is safe for
// concurrent use: the code under test reads it from its own goroutines.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at start (at a fixed instant in 2025 if start is zero).
func NewClock(start time.Time) *Clock {
	if start.IsZero() {
		start = epoch
	}
	return &Clock{t: start}
}

// Now is the clock's time; pass the method value as an injected now func.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d (backward if d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}
