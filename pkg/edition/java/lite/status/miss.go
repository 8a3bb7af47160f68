package status

import "time"

// missBucket is the token bucket of one route's misses. Routes are the proxy's own
// (never client-chosen), so the map of them needs no bound of its own.
type missBucket struct {
	tokens float64
	last   time.Time
}

// allowMissLocked spends one token of route's miss budget, if there is one.
func (c *Cache) allowMissLocked(route string, now time.Time) bool {
	if c.missRate < 0 {
		return true
	}
	b := c.misses[route]
	if b == nil {
		b = &missBucket{tokens: c.missBurst, last: now}
		c.misses[route] = b
	}
	if dt := now.Sub(b.last); dt > 0 {
		b.tokens = min(c.missBurst, b.tokens+dt.Seconds()*c.missRate)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
