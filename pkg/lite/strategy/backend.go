package strategy

import (
	"regexp"
	"sync"
	"sync/atomic"
	"time"
)

// BackendState describes one known backend, for the admin API, the
// simulator and tests.
type BackendState struct {
	Addr string
	// Active is the number of players placed on the backend and not released.
	Active int64
	// Unsettled counts the player attempts in flight to it: reserved, not
	// yet answered by the backend's first byte nor failed.
	Unsettled int64
	// FirstByte is the latest login's time from the preamble to the
	// backend's first byte; zero before the first.
	FirstByte time.Duration
	// Latency is the smoothed latency; valid only when HasLatency.
	Latency    time.Duration
	HasLatency bool
	// Health is "healthy", "ejected", "down" or "unknown".
	Health string
	// Report is the last successful status exchange, nil before the first.
	Report   *Report
	ReportAt time.Time
	// EjectedUntil is when the current passive ejection ends; zero when not
	// ejected. After it a probe (or, without probes, a player) tests the
	// backend before it gets players again.
	EjectedUntil time.Time
	// Placed counts logins placed since the last report.
	Placed int64
	// Capacity is the configured capacity override; 0 when none.
	Capacity int
	// Draining says the last report's MOTD matches the drain pattern.
	Draining bool
	// WarmSince is when the backend's slow start began: a join by a
	// reload, or the first player after a recovery; zero when neither
	// happened (or the recovered backend awaits that player).
	WarmSince time.Time
	// RampPending says it recovered and its slow start waits for its
	// first player; RampCredit is its slow-start credit in placements (see
	// ramp.go).
	RampPending bool
	RampCredit  float64
	// Removed says no route lists the backend any more while players remain
	// on it (Manager.Leaving); LastRoute is the route that listed it last.
	Removed   bool
	LastRoute string
}

// Health values of BackendState.
const (
	HealthHealthy = "healthy"
	HealthEjected = "ejected"
	HealthDown    = "down"
	HealthUnknown = "unknown"
)

// reportAt is an immutable status report with its arrival time and the
// players this instance had placed on the backend when it arrived.
type reportAt struct {
	r     Report
	at    time.Time
	own   int64
	stuck int // reports in a row with the same Online while players were placed
}

// StuckReports is how many reports in a row may repeat players online
// while this instance places players on the backend before the count is
// no longer believed.
const StuckReports = 3

// backendSettings are the per-backend knobs routes configure; immutable,
// replaced on reload.
type backendSettings struct {
	capacity int
	drain    *regexp.Regexp
}

// backend is the manager's state for one address. The atomics are what
// Order reads without locks; mu guards the bookkeeping behind them, which
// only observations and the probe loop touch.
type backend struct {
	addr string
	// fleet is its manager's answered: the fleet's progress a stall is measured
	// against (tier.go).
	fleet *atomic.Int64

	active       atomic.Int64
	unsettled    atomic.Int64 // attempts reserved and not settled
	limit        atomic.Int64 // attempts in flight it may have when healthy (pace.go); 0: MaxUnsettled
	pendingSince atomic.Int64 // unix ns since which attempts have been in flight without an answer (tier.go)
	firstByte    atomic.Int64 // latest first-byte time, ns
	answeredAt   atomic.Int64 // manager clock, unix ns of the latest login it answered; 0: none
	lateAt       atomic.Int64 // manager clock, unix ns of its latest attempt that ran out of time (patience.go)
	lastUsed     atomic.Int64 // manager clock, unix ns; lets templated backends expire
	wantLatency  atomic.Bool  // a lowest-latency route uses it: probe it while unmeasured
	report       atomic.Pointer[reportAt]
	latency      atomic.Pointer[latencyEstimate] // latest estimate, mirrored from latencyStore
	placed       placedLog                       // logins placed since the last report (placed.go)
	warmSince    atomic.Int64                    // unix ns of the last join or recovery; 0: none; rampPending
	rampCredit   atomic.Int64                    // slow-start credit, permille of a placement (ramp.go)
	settings     atomic.Pointer[backendSettings] // nil: no overrides
	draining     atomic.Bool                     // the last report's MOTD matches the drain pattern
	outcomes     outcomes                        // recent probes and dials, for the failure penalty
	heldCap      atomic.Int64                    // players it held when it last turned one away; 0: none (refusal.go)
	heldAt       atomic.Int64                    // unix ns of that refusal
	claims       atomic.Int64                    // login orders' first picks not yet reserved; changed under Manager.pick (claim.go)
	claimAt      atomic.Int64                    // unix ns of the latest claim

	ejectedUntil atomic.Int64 // unix ns; 0 when not ejected
	awaitProbe   atomic.Bool  // after the ejection a probe, not a player, tests it first
	down         atomic.Bool  // active health check says down
	seenOK       atomic.Bool  // some exchange with it has succeeded
	suspect      atomic.Bool  // its latest outcome failed, nothing succeeded since
	probation    atomic.Int64 // unix ns until which a recovered backend is on probation

	pins      int    // routes listing it statically; guarded by Manager.mu
	lastRoute string // the last route that listed it; guarded by Manager.mu

	mu             sync.Mutex
	ejected        bool // from ejection until the next success
	fails          int  // passive failures not yet forgotten (see passedLocked)
	passed         int  // passive successes in a row, towards forgetting one
	ejections      int  // ejections in a row, for the backoff
	recoveredAt    time.Time
	loginFail      bool        // the failures since the last success include a player's login
	retestOK       int         // consecutive passing retest checks of this ejection
	retestAt       time.Time   // when the next retest probe of an ejected backend is due
	hc             HealthCheck // with defaults when Enabled
	okRun, failRun int         // consecutive probe outcomes
	nextCheck      time.Time
	latencyProbeAt time.Time
	reportEvery    time.Duration // probe for load reports this often; 0: no need
	nextReport     time.Time
	inFlight       bool
	pace           pace // the login answer rate and first-byte time behind limit
}

func newBackend(addr string, fleet *atomic.Int64) *backend {
	return &backend{addr: addr, fleet: fleet}
}

// usable reports whether Order may place players on the backend before the
// ones that are known bad. probing says a probe loop tests ejected backends.
func (b *backend) usable(now int64, probing bool) bool {
	return b.reason(now, probing).Usable()
}

// reason is the manager's one health rule: what Order, Explain and Snapshot
// all read. A nil b is a backend without state yet.
func (b *backend) reason(now int64, probing bool) Reason {
	switch {
	case b == nil:
		return ReasonNew
	case b.inEjection(now, probing):
		if now < b.ejectedUntil.Load() {
			return ReasonEjected
		}
		return ReasonAwaitingProbe
	case b.down.Load():
		return ReasonDown
	case b.busy(now):
		return ReasonBusy
	case b.seenOK.Load():
		return ReasonHealthy
	}
	return ReasonUnmeasured
}

// idle reports whether no player and no attempt counts on b, so its state
// may be dropped.
func (b *backend) idle() bool { return b.active.Load() == 0 && b.unsettled.Load() == 0 }

// busy reports whether b has as many attempts in flight, or ordered to it
// and about to be, as it may have at now (see MaxUnsettled and limitAt), so
// players try the others first.
func (b *backend) busy(now int64) bool {
	n := b.unsettled.Load()
	// Claims count once an attempt is in flight, and on a backend that has
	// never answered while another has: logins ordered to b reserve only
	// after their order, and orders decided in that gap each saw the others'
	// attempts still missing (on a loaded machine a black-holed backend took a
	// fourth attempt past the bound, from orders that came together before the
	// first of them reserved). Before anything answers, a burst onto a fresh
	// route is ordered by the strategy alone.
	if n > 0 || !b.seenOK.Load() && b.fleet.Load() != 0 {
		n += b.claimed(now)
	}
	if n == 0 {
		return false
	}
	if b.doubtful(now) {
		return true
	}
	return n >= b.limitAt(now)
}

// inEjection reports whether an ejection keeps b from players at now:
// before its end, or after it while a probe loop has yet to retest it.
func (b *backend) inEjection(now int64, probing bool) bool {
	until := b.ejectedUntil.Load()
	if until == 0 {
		return false
	}
	return now < until || (probing && b.awaitProbe.Load())
}

// state builds the public description at now, with why as b's reason.
func (b *backend) state(now time.Time, why Reason, lat *latencyStore) BackendState {
	s := BackendState{Addr: b.addr, Active: b.active.Load(), Unsettled: b.unsettled.Load(),
		FirstByte: time.Duration(b.firstByte.Load()), Health: why.health()}
	if e, ok := lat.get(b.addr, now); ok {
		s.Latency, s.HasLatency = e.value, true
	}
	if p := b.report.Load(); p != nil {
		r := p.r
		s.Report, s.ReportAt = &r, p.at
	}
	until := b.ejectedUntil.Load()
	if until != 0 {
		s.EjectedUntil = time.Unix(0, until)
	}
	switch w := b.warmSince.Load(); w {
	case 0:
	case rampPending:
		s.RampPending = true
	default:
		s.WarmSince = time.Unix(0, w)
	}
	s.RampCredit = float64(b.rampCredit.Load()) / 1000
	if st := b.settings.Load(); st != nil {
		s.Capacity = st.capacity
	}
	s.Placed, s.Draining = b.placed.count(), b.draining.Load()
	return s
}

// refreshDrain recomputes the drain verdict from the last report and the
// current pattern; called when either changes.
func (b *backend) refreshDrain() {
	st, p := b.settings.Load(), b.report.Load()
	b.draining.Store(st != nil && st.drain != nil && p != nil && st.drain.MatchString(p.r.MOTD))
}

// warm returns how long ago b joined or recovered, Settled if never.
func (b *backend) warm(now int64) time.Duration {
	w := b.warmSince.Load()
	if w == rampPending {
		return 0
	}
	if w == 0 || now < w {
		return Settled
	}
	return time.Duration(now - w)
}

// setSettings installs s, keeping the pointer (and skipping the drain
// recomputation) when nothing changed.
func (b *backend) setSettings(s backendSettings) {
	if old := b.settings.Load(); old != nil && *old == s {
		return
	}
	if s == (backendSettings{}) && b.settings.Load() == nil {
		return
	}
	b.settings.Store(&s)
	b.refreshDrain()
}
