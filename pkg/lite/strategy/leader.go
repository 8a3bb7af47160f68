package strategy

import "time"

// Leader is implemented by strategies that keep one preferred backend per
// route (lowest-latency's incumbent), so that tools can watch how often
// the preference flaps.
type Leader interface {
	// Leader returns the preferred backend ("" before the first) and how
	// many times it changed from one backend to another.
	Leader() (addr string, changes uint64)
}

// Hold says why lowest-latency keeps its incumbent.
type Hold string

// The reasons for not switching.
const (
	// HoldIncumbentBest: nobody beats the incumbent.
	HoldIncumbentBest Hold = "incumbent-best"
	// HoldInsufficientAdvantage: a faster backend is within the margin.
	HoldInsufficientAdvantage Hold = "insufficient-advantage"
	// HoldUnstable: a challenger beats the margin but has not done so in
	// LatencyConfirmations consecutive probe rounds yet.
	HoldUnstable Hold = "candidate-unstable"
	// HoldCooldown: confirmed, but the last switch is less than
	// LatencyCooldown ago.
	HoldCooldown Hold = "cooldown"
	// HoldAllProbesFailed: every measured backend's newest probe or dial
	// failed, so the order stays as it was.
	HoldAllProbesFailed Hold = "all-probes-failed"
)

// Change is why the incumbent changed.
type Change uint8

// The reasons for a change.
const (
	// ChangeConfirmed: a challenger won by the margin in enough rounds.
	ChangeConfirmed Change = iota
	// ChangeIncumbentGone: the incumbent left the route or its estimate
	// faded, and the best measured backend took over at once.
	ChangeIncumbentGone
	numChanges
)

// String names the change for metrics and logs.
func (c Change) String() string {
	if c == ChangeIncumbentGone {
		return "incumbent-gone"
	}
	return "confirmed"
}

// Changes lists every Change, for metrics that show all reasons.
func Changes() []Change { return []Change{ChangeConfirmed, ChangeIncumbentGone} }

// LatencyDecision is a lowest-latency route's decision state.
type LatencyDecision struct {
	// Best is the incumbent; Challenger the backend beating it by the
	// margin, with Confirmations of the Needed consecutive rounds.
	Best, Challenger string
	Confirmations    int
	Needed           int
	// LastSwitch is when a challenger last took over; zero before.
	LastSwitch time.Time
	// Hold is why the incumbent stayed at the last order.
	Hold Hold
	// Changes counts the incumbent's changes by reason.
	Changes [numChanges]uint64
}

func (d *LatencyDecision) count(c Change) { d.Changes[c]++ }

// Leader reports the preferred backend of routeKey's strategy and how
// often it changed; ok is false for an unknown route or a strategy
// without a single preferred backend.
func (m *Manager) Leader(routeKey string) (addr string, changes uint64, ok bool) {
	m.mu.RLock()
	r := m.routes[routeKey]
	m.mu.RUnlock()
	if r == nil {
		return "", 0, false
	}
	l, ok := r.strat.(Leader)
	if !ok {
		return "", 0, false
	}
	addr, changes = l.Leader()
	return addr, changes, true
}

// Decision returns the decision state of routeKey when its strategy is
// lowest-latency; ok is false otherwise.
func (m *Manager) Decision(routeKey string) (d LatencyDecision, ok bool) {
	m.mu.RLock()
	r := m.routes[routeKey]
	m.mu.RUnlock()
	if r == nil {
		return d, false
	}
	ll, ok := r.strat.(*lowestLatency)
	if !ok {
		return d, false
	}
	return ll.decision(), true
}
