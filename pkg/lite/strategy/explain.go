package strategy

import "time"

// Reason is the health verdict behind a backend's place in the try order.
type Reason uint8

// The reasons, usable ones first.
const (
	// ReasonNew: the manager has no state for the backend yet; it is tried
	// like a healthy one.
	ReasonNew Reason = iota
	// ReasonHealthy: an exchange with it succeeded and nothing counts against it.
	ReasonHealthy
	// ReasonUnmeasured: known, but nothing has succeeded yet; tried like a
	// healthy one.
	ReasonUnmeasured
	// ReasonBusy: as many player attempts are in flight to it, unsettled,
	// as it may have (MaxUnsettled; one while it is suspect, new or on
	// probation); players try the others first.
	ReasonBusy
	// ReasonEjected: passive ejection after EjectFailures dial failures in a
	// row, until BackendState.EjectedUntil.
	ReasonEjected
	// ReasonAwaitingProbe: the ejection is over and a probe must pass before
	// players return.
	ReasonAwaitingProbe
	// ReasonDown: active health checks are failing.
	ReasonDown
)

// Usable reports whether a backend with this reason is ordered by the
// strategy on its own merits rather than demoted behind the usable ones.
func (r Reason) Usable() bool { return r < ReasonBusy }

// String names the reason for logs and the admin API.
func (r Reason) String() string {
	switch r {
	case ReasonNew:
		return "new"
	case ReasonHealthy:
		return "healthy"
	case ReasonUnmeasured:
		return "unmeasured"
	case ReasonBusy:
		return "busy"
	case ReasonEjected:
		return "ejected"
	case ReasonAwaitingProbe:
		return "awaiting-probe"
	case ReasonDown:
		return "down"
	}
	return "invalid"
}

// health is BackendState.Health for the reason.
func (r Reason) health() string {
	switch r {
	case ReasonHealthy, ReasonBusy:
		return HealthHealthy
	case ReasonEjected, ReasonAwaitingProbe:
		return HealthEjected
	case ReasonDown:
		return HealthDown
	}
	return HealthUnknown
}

// Verdict is what the manager would act on for one backend of one
// connection, now.
type Verdict struct {
	Addr string
	// Known says the manager has state for Addr; State is valid only then.
	Known bool
	State BackendState
	// Reason is the backend's health verdict; Usable is Reason.Usable().
	Reason Reason
	Usable bool
	// Spill says every healthy backend is busy (a login storm), so the
	// strategy orders the busy ones; Pooled says this backend is among
	// those it orders now.
	Spill, Pooled bool
	// Panic says fewer than half of the backends are healthy, so the
	// strategy orders all of them, the unusable ones included.
	Panic bool
	// Score is the strategy's ranking value, valid when HasScore (see
	// ScoreUnit for what it counts); lower is better.
	Score    float64
	HasScore bool
	// Failures is the failed share (permille) of the backend's recent
	// probes and attempts, and Penalty what it adds to latency scores.
	Failures int64
	Penalty  time.Duration
	// Load is the load estimate of a strategy that reads load; nil for
	// the others.
	Load *LoadVerdict
	// Passed says in words what besides health holds the backend back
	// now (a storm spill, attempts in flight at its limit, its failure
	// penalty, a slow start, a capacity learnt from refusals); "" when
	// nothing does.
	Passed string
	// Drained says the operator drained the backend (drain.go): no new players.
	Drained bool
}

// Eligible reports whether the strategy orders the backend among the
// candidates; an ineligible one is tried only after them.
func (v Verdict) Eligible() bool { return v.Usable || v.Panic || v.Pooled }

// Explain returns, for each of backends in order, the verdict AppendOrder
// would act on for a connection to routeKey with these backends at this
// moment of the manager's clock: the same lookup and health rule, the same
// panic threshold. Unlike AppendOrder it changes nothing: no state is
// created for unknown backends and nothing is marked used. intent is the
// connection's kind, for strategies whose scores depend on it.
func (m *Manager) Explain(routeKey string, backends []string, intent Intent) []Verdict {
	out := make([]Verdict, 0, len(backends))
	if len(backends) == 0 {
		return out
	}
	now := m.now()
	sc := m.getScratch(len(backends))
	defer m.putScratch(sc)
	m.lookup(routeKey, backends, sc.bs, 0)
	r := m.lookupRoute(routeKey)
	panicMode, _ := m.markUsable(sc, now)
	for i, b := range sc.bs {
		v := Verdict{Addr: backends[i], Known: b != nil, Reason: sc.why[i], Usable: sc.why[i].Usable(), Panic: panicMode,
			Spill: !panicMode && sc.pool > rankUsable, Pooled: sc.inPool(i, panicMode)}
		if b != nil {
			v.State = b.state(now, sc.why[i], m.lat)
			v.Failures, _ = b.outcomes.share()
			v.Penalty = FailurePenalty(v.Failures)
			v.Passed = m.passedOver(b, &v, r, now)
		}
		out = append(out, v)
	}
	if r != nil {
		m.score(r, sc, backends, panicMode, now, out)
	}
	m.markDrained(out)
	return out
}
