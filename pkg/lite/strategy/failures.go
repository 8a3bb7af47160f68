package strategy

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Failures count in the latency score like packet loss: the share of a
// backend's last FailureWindow probes and player dials that failed adds
// FailurePenaltyPerPercent per percent. One failure in a full window
// costs about 31 ms, more than the 20 ms hysteresis margin, so a fast but
// unreliable backend does not win on latency alone; it takes 32 good
// outcomes in a row to clear it.
const (
	FailureWindow            = 32
	FailurePenaltyPerPercent = 10 * time.Millisecond
)

// outcomes is a lock-free ring of a backend's last FailureWindow
// outcomes: the low 32 bits are the outcomes (1 failed, newest in bit 0),
// the bits above count how many are filled (at most FailureWindow).
type outcomes struct{ v atomic.Uint64 }

// record adds one outcome.
func (o *outcomes) record(failed bool) {
	for {
		old := o.v.Load()
		ring, n := uint32(old), old>>32
		ring <<= 1
		if failed {
			ring |= 1
		}
		next := min(n+1, FailureWindow)<<32 | uint64(ring)
		if o.v.CompareAndSwap(old, next) {
			return
		}
	}
}

// share returns the failed outcomes in permille of those recorded, and
// whether the newest one failed.
func (o *outcomes) share() (permille int64, lastFailed bool) {
	v := o.v.Load()
	n := int64(v >> 32)
	if n == 0 {
		return 0, false
	}
	ring := uint32(v)
	if n < FailureWindow {
		ring &= 1<<n - 1
	}
	return int64(bits.OnesCount32(ring)) * 1000 / n, ring&1 == 1
}

// FailurePenalty is the score added for failed permille of recent
// outcomes failing.
func FailurePenalty(permille int64) time.Duration {
	return time.Duration(permille) * FailurePenaltyPerPercent / 10
}

// reset forgets every outcome, on a recovery verdict: the failures that led
// to the ejection are what the verdict overrules, and a penalty from them
// would keep the backend out until FailureWindow new outcomes replaced them
// (one probe each interval once no players come).
func (o *outcomes) reset() { o.v.Store(0) }
