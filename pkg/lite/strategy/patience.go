package strategy

import (
	"errors"
	"math"
	"time"
)

// ErrNoAnswer marks an attempt whose backend took the login and sent no first
// byte within the wait Patience gave it. Settle counts it as a failure, and
// marks the backend late until it answers again.
var ErrNoAnswer = errors.New("backend sent no first answer in time")

// SlowFleetFactor is how many times the fleet's fastest current first answer a
// login waits, when that is longer than the configured first-response wait.
const SlowFleetFactor = 2

// Unbounded is Patience's answer when every backend of the fleet is late: the
// login waits for as long as its own deadline (the client's) allows.
const Unbounded = time.Duration(math.MaxInt64)

// Patience is how long a login waits for a backend's first answer, given the
// fleet it is placed in (the route's backends) and the configured wait. Slow
// and dead are told apart by the rest of the fleet, never by the clock alone:
//   - some backend answers within wait: wait (a backend that does not is dark
//     or slower than its peers, and the next one serves sooner);
//   - the fastest answering backend takes longer than wait: that is the
//     fleet's normal, so SlowFleetFactor times it;
//   - every backend of the fleet is late (its latest attempt ran out of time,
//     and it has not answered since): nothing answers sooner than the one
//     being tried, so Unbounded.
//
// A backend's pace is its latest first-answer time while it answers; one that
// has never answered says nothing yet (and the configured wait stands) unless
// its attempts are already overdue: in a burst onto a fresh route, the first
// backend to run out of time is not taken for the only late one while the
// others' attempts run out too.
func (m *Manager) Patience(fleet []string, wait time.Duration) time.Duration {
	fastest, late, unheard := time.Duration(-1), 0, 0
	now := m.now().UnixNano()
	m.mu.RLock()
	for _, addr := range fleet {
		b := m.backends[addr]
		switch {
		case b == nil:
			unheard++
		case b.answeredAt.Load() == 0 && b.lateAt.Load() == 0:
			if !b.overdue(now, wait) {
				unheard++
			}
		case b.lateAt.Load() > b.answeredAt.Load():
			late++
		default:
			if fb := time.Duration(b.firstByte.Load()); fastest < 0 || fb < fastest {
				fastest = fb
			}
		}
	}
	m.mu.RUnlock()
	switch {
	case fastest >= 0:
		return max(wait, SlowFleetFactor*fastest)
	case late > 0 && unheard == 0:
		return Unbounded
	}
	return wait
}

// overdue reports whether b has had attempts in flight for longer than wait.
func (b *backend) overdue(now int64, wait time.Duration) bool {
	return b.unsettled.Load() > 0 && now-b.pendingSince.Load() > int64(wait)
}

// markLate records that b let an attempt run out of time at nowNS.
func (b *backend) markLate(nowNS int64) { storeMax(&b.lateAt, nowNS) }
