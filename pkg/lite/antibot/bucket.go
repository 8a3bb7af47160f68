package antibot

import "time"

// bucket is a token bucket whose rate comes with each call, so one bucket follows
// a reload's new rate and the overflow bucket serves any scope. Its owner locks.
type bucket struct {
	tokens float64
	at     time.Time
}

// refill brings the bucket to now under r.
func (b *bucket) refill(r Rate, now time.Time) {
	if el := now.Sub(b.at); el > 0 {
		b.tokens += el.Seconds() * r.Ops
		b.at = now
	}
	b.tokens = min(b.tokens, float64(r.Burst))
}

// fill makes the bucket full at now: what a name not seen yet gets.
func (b *bucket) fill(r Rate, now time.Time) { b.tokens, b.at = float64(r.Burst), now }

// full reports whether the bucket is full at now: it then carries nothing a new
// bucket would not, and may be replaced.
func (b *bucket) full(r Rate, now time.Time) bool {
	b.refill(r, now)
	return b.tokens >= float64(r.Burst)
}

// take takes one token, if there is one.
func (b *bucket) take(r Rate, now time.Time) bool {
	b.refill(r, now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
