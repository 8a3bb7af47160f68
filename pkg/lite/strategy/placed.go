package strategy

import "sync/atomic"

// placedRing is how many of a backend's latest placements keep their time: at
// least the placements one status exchange can overlap (300 logins a second
// onto one backend for 200 ms is 60).
const placedRing = 64

// placedTimes remembers when a backend's latest placements settled, so a report
// drops from the charge only the placements the backend can have counted. A
// report leaves the backend a round trip before it arrives: placements settled
// since the exchange began may be missing from its count, and dropping them
// made that backend look emptier than it was (on a loaded machine a 200-slot
// backend of 2000/200/200/200 took 12-14 of 130 players where its share was 10).
// Charging them until the next report errs towards spreading instead.
type placedTimes struct {
	n  atomic.Uint64
	at [placedRing]atomic.Int64 // unix ns, manager clock; slot n % placedRing
}

// add records one placement at now.
func (p *placedTimes) add(now int64) {
	i := p.n.Add(1)
	p.at[i%placedRing].Store(now)
}

// since counts the placements, of the latest max, that settled after from.
func (p *placedTimes) since(from int64, max int64) int64 {
	n := p.n.Load()
	var k int64
	for ; k < max && k < placedRing && uint64(k) < n; k++ {
		if p.at[(n-uint64(k))%placedRing].Load() <= from {
			return k
		}
	}
	if k == placedRing {
		return max // all the ones remembered are recent: keep charging them all
	}
	return k
}
