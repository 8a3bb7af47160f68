package strategy

import (
	"context"
	"errors"
	"time"
)

// Passive ejection: this many consecutive dial failures eject a backend for
// EjectBase, doubling with each ejection in a row up to EjectMax. The
// duration is shortened by a random 0-10% so that replicas that saw the same
// outage do not all retest the backend at the same instant.
const (
	EjectFailures = 3
	EjectBase     = 30 * time.Second
	EjectMax      = 300 * time.Second
)

// event is a health transition, logged after the locks are released.
type event uint8

const (
	evNone      event = iota
	evEjected         // usable -> ejected
	evReejected       // failed its retest; still ejected, longer
	evRecovered       // ejected -> usable
	evDown            // active checks: up -> down
	evUp              // active checks: down -> up
)

// ObserveDial feeds one dial outcome: a success, or a failure towards
// passive ejection; both count in the failure share of the latency score.
// The connect time d is not a latency sample: the backend's kernel answers
// it, however slow its server is. Failures while the
// backend is already ejected (last-resort dials) do not extend it, and a
// dial cancelled because the client went away (context.Canceled) says
// nothing about the backend and is ignored; a timeout does count.
func (m *Manager) ObserveDial(addr string, d time.Duration, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	b := m.backendFor(addr)
	b.outcomes.record(err != nil)
	if err == nil {
		m.passiveOK(b)
		return
	}
	m.passiveFail(b)
}

// ObserveStatus feeds one real status exchange with the backend (never a
// cache hit): its RTT is a latency sample and its players are the load
// report. A failed exchange changes nothing: dial failures arrive through
// ObserveDial, and a backend that accepts but answers badly is left to
// active checks.
func (m *Manager) ObserveStatus(addr string, r Report, err error) {
	if err != nil {
		return
	}
	b := m.backendFor(addr)
	b.outcomes.record(false)
	m.recordReport(b, r)
	m.passiveOK(b)
}

// recordReport stores a fresh report; it resets the placements charged
// since the previous one, because the backend now counts them itself.
func (m *Manager) recordReport(b *backend, r Report) {
	m.lat.add(b, r.RTT)
	next := &reportAt{r: r, at: m.now(), own: b.active.Load()}
	if prev := b.report.Load(); prev != nil && prev.r.Online == r.Online && b.placed.Load() > 0 {
		next.stuck = prev.stuck + 1
	}
	b.report.Store(next)
	b.placed.Store(0)
	b.refreshDrain()
}

// passiveOK records a successful exchange: it ends any ejection at once.
func (m *Manager) passiveOK(b *backend) {
	now := m.now()
	b.seenOK.Store(true)
	b.mu.Lock()
	b.fails = 0
	ev := evNone
	if b.ejected {
		b.ejected = false
		b.ejectedUntil.Store(0)
		b.awaitProbe.Store(false)
		b.recoveredAt = now
		b.warmSince.Store(now.UnixNano())
		ev = evRecovered
	}
	b.mu.Unlock()
	m.logEvent(b, ev, 0)
}

// passiveFail records a failed dial.
func (m *Manager) passiveFail(b *backend) {
	now := m.now()
	b.mu.Lock()
	ev, d := evNone, time.Duration(0)
	switch {
	case b.ejected && b.inEjection(now.UnixNano(), m.probing.Load()):
		// Still ejected (or waiting for its probe): nothing new learnt.
	case b.ejected:
		// The first player after the ejection failed: eject again.
		d = m.ejectLocked(b, now)
		ev = evReejected
	default:
		b.fails++
		if b.fails >= EjectFailures {
			d = m.ejectLocked(b, now)
			ev = evEjected
		}
	}
	b.mu.Unlock()
	m.logEvent(b, ev, d)
}

// ejectLocked ejects b and returns for how long. b.mu must be held.
func (m *Manager) ejectLocked(b *backend, now time.Time) time.Duration {
	if !b.recoveredAt.IsZero() && now.Sub(b.recoveredAt) >= EjectMax {
		// It stayed up for a whole maximum ejection: start the backoff over.
		b.ejections = 0
	}
	b.ejections++
	d := EjectionDuration(b.ejections)
	d -= time.Duration(m.jitter.Int64N(int64(d/10) + 1))
	b.ejected = true
	b.fails = 0
	b.ejectedUntil.Store(now.Add(d).UnixNano())
	b.awaitProbe.Store(true)
	m.wake()
	return d
}

// EjectionDuration is the ejection length before jitter for the n-th
// ejection in a row (n >= 1): 30s, 60s, 120s, 240s, then 300s.
func EjectionDuration(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	d := EjectBase << min(n-1, 5)
	return min(d, EjectMax)
}

// applyProbe records a probe's outcome: a success counts like a passing
// exchange (and passes the retest of an ejected backend), a failure counts
// towards the active fall threshold and fails a pending retest.
func (m *Manager) applyProbe(b *backend, r Report, err error) {
	b.outcomes.record(err != nil)
	if err == nil {
		m.recordReport(b, r)
		m.passiveOK(b)
	}
	now := m.now()
	b.mu.Lock()
	ev, d := m.activeLocked(b, err == nil), time.Duration(0)
	if err != nil && b.ejected && now.UnixNano() >= b.ejectedUntil.Load() {
		d = m.ejectLocked(b, now)
		ev = evReejected
	}
	b.inFlight = false
	b.mu.Unlock()
	m.logEvent(b, ev, d)
}

// activeLocked applies rise/fall when active checks are on. b.mu must be held.
func (m *Manager) activeLocked(b *backend, ok bool) event {
	if !b.hc.Enabled {
		return evNone
	}
	if ok {
		b.okRun, b.failRun = b.okRun+1, 0
		if b.down.Load() && b.okRun >= b.hc.Rise {
			b.down.Store(false)
			b.warmSince.Store(m.now().UnixNano())
			return evUp
		}
		return evNone
	}
	b.okRun, b.failRun = 0, b.failRun+1
	if !b.down.Load() && b.failRun >= b.hc.Fall {
		b.down.Store(true)
		return evDown
	}
	return evNone
}

// logEvent logs a transition once; repeated failures of a backend that is
// already out never reach here, so a dead backend costs one line, not one
// per player.
func (m *Manager) logEvent(b *backend, ev event, d time.Duration) {
	switch ev {
	case evEjected:
		m.log.Info("backend ejected after consecutive dial failures", "backend", b.addr, "failures", EjectFailures, "for", d)
	case evReejected:
		m.log.V(1).Info("backend failed its retest, ejected again", "backend", b.addr, "for", d)
	case evRecovered:
		m.log.Info("backend recovered", "backend", b.addr)
	case evDown:
		m.log.Info("backend down: health checks failing", "backend", b.addr)
	case evUp:
		m.log.Info("backend up: health checks passing", "backend", b.addr)
	}
}
