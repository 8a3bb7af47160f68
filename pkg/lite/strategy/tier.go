package strategy

import (
	"sync/atomic"
	"time"
)

// Health ranks: where a backend stands when the order is built. The
// strategy orders the lowest rank present (all backends in health panic);
// the rest follow rank by rank, config order within one. A storm that fills
// every healthy backend's attempts in flight widens the pool one rank at a
// time, so a backend known to be dead stays last however busy the others are.
const (
	rankUsable    uint8 = iota // healthy, new or unmeasured, room for attempts
	rankBusy                   // healthy; its attempts in flight are at its limit
	rankBusyDoubt              // busy while suspect, on probation or stalled
	rankAwaiting               // ejection over, a probe must pass first
	rankOut                    // ejected or down
)

// rank places b (nil: no state yet) with health verdict why.
func rank(b *backend, why Reason, now int64) uint8 {
	switch why {
	case ReasonNew, ReasonHealthy, ReasonUnmeasured:
		return rankUsable
	case ReasonBusy:
		// A backend that has not answered yet is as good as the others in a
		// burst onto a fresh route; one whose latest outcome failed, one on
		// probation, and one whose attempts stall are not.
		if b.suspect.Load() || now < b.probation.Load() || b.stalled(now) {
			return rankBusyDoubt
		}
		return rankBusy
	case ReasonAwaitingProbe:
		return rankAwaiting
	}
	return rankOut
}

// doubtful reports whether b gets one attempt at a time: its latest outcome
// failed, it is on probation after a recovery, or it never answered and its
// attempts have gone unanswered past StallAfter. Not having answered *yet* is no
// evidence: onto a fresh route every backend is new, and one attempt at a time
// each let the first to answer take a whole burst while the others' answers were
// still on their way. A black hole that never answers is held to one attempt once
// its first ones have stalled, at most MaxUnsettled before that (what a healthy
// backend that dies costs too).
func (b *backend) doubtful(now int64) bool {
	return b.suspect.Load() || now < b.probation.Load() || !b.seenOK.Load() && b.stalled(now)
}

// SpillLogEvery bounds the spill log line: at most one per interval per
// manager, with the spills counted since the previous line.
const SpillLogEvery = 10 * time.Second

// spills counts orders whose pool had to widen past the usable backends.
type spills struct {
	total   atomic.Uint64
	logged  atomic.Uint64 // total at the last log line
	nextLog atomic.Int64  // unix ns before which no line is logged
}

// Spills is how many login orders found every healthy backend's attempts
// in flight at its limit, so the strategy ordered the busy ones (or, past
// them, the doubtful ones); it only grows.
func (m *Manager) Spills() uint64 { return m.spill.total.Load() }

// RouteSpills is Spills for one route (0 for an unknown one); it survives
// reloads that keep the route's key and strategy.
func (m *Manager) RouteSpills(key string) uint64 {
	if r := m.lookupRoute(key); r != nil {
		return r.spills.Load()
	}
	return 0
}

// spilled counts one widened order and logs, at most every SpillLogEvery,
// how many there were since the last line.
func (m *Manager) spilled(r *route, pool uint8, now time.Time) {
	total := m.spill.total.Add(1)
	if r != nil {
		r.spills.Add(1)
	}
	next := m.spill.nextLog.Load()
	if now.UnixNano() < next || !m.spill.nextLog.CompareAndSwap(next, now.Add(SpillLogEvery).UnixNano()) {
		return
	}
	since := total - m.spill.logged.Swap(total)
	key := ""
	if r != nil {
		key = r.key
	}
	m.log.Info("login storm: every healthy backend has its attempts in flight at its limit, widening to busy backends (dead ones stay last)",
		"route", key, "spills", since, "pool", rankName(pool))
}

func rankName(r uint8) string {
	switch r {
	case rankUsable:
		return "usable"
	case rankBusy:
		return "busy"
	case rankBusyDoubt:
		return "busy-doubtful"
	case rankAwaiting:
		return "awaiting-probe"
	}
	return "out"
}

// traceMax bounds the addresses one login's order record names.
const traceMax = 8

// traceOrder records one login's try order at debug level (V(1)): the
// first traceMax addresses, how many there were, and the pool the strategy
// ordered. Nothing is built unless the level is on.
func (m *Manager) traceOrder(r *route, intent Intent, order []string, pool uint8) {
	if intent != IntentLogin || !m.log.V(1).Enabled() {
		return
	}
	key := ""
	if r != nil {
		key = r.key
	}
	named := append([]string(nil), order[:min(len(order), traceMax)]...)
	m.log.V(1).Info("login order", "route", key, "order", named, "backends", len(order), "pool", rankName(pool))
}

// StallAfter is the least lead the fleet must have on a backend's attempts in
// flight before they count as stalled (twice its latest first-byte time when
// that is longer; see stalled). A stalled backend is doubtful in a storm, so a
// backend that stopped answering (or never did) is not spilled onto like a slow
// one that answers.
const StallAfter = 100 * time.Millisecond

// attempt counts one attempt reserved at now.
func (b *backend) attempt(now time.Time) {
	if b.unsettled.Add(1) == 1 {
		b.pendingSince.Store(now.UnixNano())
	}
}

// stalled reports whether b's attempts in flight have gone unanswered for
// longer than StallAfter, or twice its first-byte time, measured by the fleet's
// progress rather than the clock: some backend has already answered an attempt
// reserved that long after b's oldest unanswered one. A proxy short of CPU (a
// burst, a loaded host) answers every backend late alike and stalls none of them;
// a black hole among backends that answer stalls as soon as they outrun it.
func (b *backend) stalled(now int64) bool {
	return b.behind(now, max(int64(StallAfter), 2*b.firstByte.Load()))
}

// behind reports whether b's oldest attempt in flight has gone unanswered for
// longer than after, both by the clock and by the fleet's progress.
func (b *backend) behind(now, after int64) bool {
	if b.unsettled.Load() == 0 {
		return false
	}
	since := b.pendingSince.Load()
	return now-since > after && b.fleet.Load()-since > after
}

// storeMax raises v to x if x is greater.
func storeMax(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x <= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}
