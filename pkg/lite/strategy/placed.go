package strategy

import "sync/atomic"

// placedRing is how many of a backend's latest placements keep their time: at
// least the placements one status exchange can overlap (300 logins a second
// onto one backend for 200 ms is 60).
const placedRing = 64

// placedLog counts a backend's logins placed since its last report, and
// remembers when the latest of them settled, so a report drops from the charge
// only the placements the backend can have counted. A report leaves the backend
// a round trip before it arrives: placements settled since the exchange began
// may be missing from its count, and dropping them made that backend look
// emptier than it was. Charging them until the next report errs towards
// spreading instead.
type placedLog struct {
	n    atomic.Uint64            // placements ever
	base atomic.Uint64            // the first base of them are the reports' to count
	at   [placedRing]atomic.Int64 // when each settled (unix ns); slot n % placedRing
}

// add records one placement at now (unix ns, manager clock).
func (p *placedLog) add(now int64) {
	i := p.n.Add(1)
	p.at[i%placedRing].Store(now)
}

// count is how many placements are charged: those since the last report.
func (p *placedLog) count() int64 {
	base := p.base.Load() // before n: n only grows, so the difference stays >= 0
	return int64(p.n.Load() - base)
}

// reported hands the placements settled by from (unix ns) over to a report;
// the later ones stay charged.
func (p *placedLog) reported(from int64) {
	n := p.n.Load()
	keep := p.since(n, from, int64(n-p.base.Load()))
	p.base.Store(n - uint64(keep))
}

// since counts the placements, of the latest limit up to the n-th, that
// settled after from.
func (p *placedLog) since(n uint64, from, limit int64) int64 {
	var k int64
	for ; k < limit && k < placedRing && uint64(k) < n; k++ {
		if p.at[(n-uint64(k))%placedRing].Load() <= from {
			return k
		}
	}
	if k == placedRing {
		return limit // every one remembered is recent: keep charging them all
	}
	return k
}
