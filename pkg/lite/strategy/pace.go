package strategy

import "time"

// A healthy backend may have as many attempts in flight as its answers
// need: by Little's law, the logins it answers per second times how long
// each waits for its first byte, BusyHeadroom times over so that a burst
// fits. A server that answers 100 logins a second 300ms after each has 30
// in flight when all is well; a fixed bound would call it busy and spill a
// storm onto the rest. The bound never goes below MaxUnsettled (a backend
// without a measured pace) nor above MaxUnsettledCap, and falls back to
// MaxUnsettled when the backend has answered nothing for 2 paceWindows, so a
// backend that went dark does not keep a large allowance.
const (
	BusyHeadroom    = 2
	MaxUnsettledCap = 256
	paceWindow      = time.Second
)

// pace measures a backend's login answers; guarded by backend.mu.
type pace struct {
	start    time.Time     // start of the current window
	n        int64         // answers in the current window
	prevN    int64         // answers in the previous window
	prevSpan time.Duration // its length; 0: none
	fb       time.Duration // smoothed first-byte time
	last     time.Time     // the latest answer
}

// answered counts one login answered at now after firstByte.
func (p *pace) answered(now time.Time, firstByte time.Duration) {
	if firstByte > 0 {
		if p.fb == 0 {
			p.fb = firstByte
		} else {
			p.fb += (firstByte - p.fb) / 8
		}
	}
	if span := now.Sub(p.start); p.start.IsZero() || span >= paceWindow {
		p.prevN, p.prevSpan = p.n, span
		if p.start.IsZero() || span >= 2*paceWindow {
			p.prevN, p.prevSpan = 0, 0 // an idle gap says nothing about the rate
		}
		p.start, p.n = now, 0
	}
	p.n++
	p.last = now
}

// limit is the attempts in flight the measured pace needs, at the time of
// the latest answer.
// A storm is seen within a quarter window: the current window counts once
// it is that long, and the faster of the two windows wins.
func (p *pace) limit() int64 {
	need := p.need(p.prevN, p.prevSpan)
	if span := p.last.Sub(p.start); span >= paceWindow/4 {
		need = max(need, p.need(p.n-1, span)) // n answers span n-1 gaps

	}
	return min(max(need, MaxUnsettled), MaxUnsettledCap)
}

// need is the attempts in flight n answers over span call for.
func (p *pace) need(n int64, span time.Duration) int64 {
	if n == 0 || span <= 0 {
		return 0
	}
	return (BusyHeadroom*n*int64(p.fb) + int64(span) - 1) / int64(span)
}

// limitAt is how many attempts b may have in flight at now while healthy.
func (b *backend) limitAt(now int64) int64 {
	l := b.limit.Load()
	if l <= MaxUnsettled || now-b.answeredAt.Load() >= int64(2*paceWindow) {
		return MaxUnsettled
	}
	return l
}
