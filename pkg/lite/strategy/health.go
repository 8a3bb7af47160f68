package strategy

import (
	"context"
	"errors"
	"time"
)

// Passive ejection: EjectFailures failures (a refused or timed-out dial, a
// login with no first byte, a failed status exchange) eject a backend; each
// run of ForgetAfter successes in a row forgets one of them, so a healthy
// backend's rare failure fades while a flapping one, whose good phases are
// short, is ejected as fast as a dead one. Ejection lasts EjectBase, doubling with each ejection in a row up to EjectMax. The
// duration is shortened by a random 0-10% so that replicas that saw the same
// outage do not all retest the backend at the same instant.
const (
	EjectFailures = 3
	ForgetAfter   = 10
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

// StableAfter is how long a backend that recovered from an ejection must
// serve before it counts as stable again. Until then it is on probation:
// one attempt at a time, one failure ejects it again, and the backoff keeps
// doubling. After it, the backoff starts over at EjectBase and three
// failures in a row are needed again.
const StableAfter = EjectMax

// ObserveDial feeds one dial outcome: a success (not yet proof that the
// backend serves: a login is proven by its first byte, see Lease.Settle),
// or a failure towards passive ejection; both count in the failure share
// of the latency score. The connect time d is not a latency sample: the
// backend's kernel answers it, however slow its server is.
// Failures while the backend is already ejected (last-resort dials) do not
// extend it. A dial cancelled because the client went away
// (context.Canceled) or failed for the proxy's own reasons (ErrNotBackend)
// says nothing about the backend and is ignored; a timeout does count.
func (m *Manager) ObserveDial(addr string, d time.Duration, err error) {
	if noVerdict(err) {
		return
	}
	b := m.backendFor(addr)
	b.outcomes.record(err != nil)
	if err == nil {
		return
	}
	m.passiveFail(b, false)
}

// ObserveStatus feeds one real status exchange with the backend (never a
// cache hit), after its dial succeeded: its RTT is a latency sample and its
// players are the load report. A failed exchange (it hung past its deadline,
// the backend closed, or it answered garbage) is a failure like a refused
// dial. A success does not clear failed logins: a backend that answers
// pings but drops players is not healthy.
func (m *Manager) ObserveStatus(addr string, r Report, err error) {
	if noVerdict(err) {
		return
	}
	b := m.backendFor(addr)
	b.outcomes.record(err != nil)
	if err != nil {
		m.passiveFail(b, false)
		return
	}
	m.recordReport(b, r)
	m.checkOK(b)
}

// noVerdict reports outcomes that say nothing about the backend's health: the
// player left, the proxy's own limit, or a player turned away in the
// backend's own words (it answered).
func noVerdict(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, ErrNotBackend) || errors.Is(err, ErrRefused)
}

// recordReport stores a fresh report; the placements charged since the
// previous one stop being charged, because the backend now counts them
// itself, except those settled after the exchange began (placed.go).
func (m *Manager) recordReport(b *backend, r Report) {
	m.lat.add(b, r.RTT)
	now := m.now()
	next := &reportAt{r: r, at: now, own: b.active.Load()}
	if prev := b.report.Load(); prev != nil && prev.r.Online == r.Online && b.placed.count() > 0 {
		next.stuck = prev.stuck + 1
	}
	b.report.Store(next)
	b.placed.reported(now.Add(-r.RTT).UnixNano())
	if r.HasPlayers {
		b.raiseHeld(r.Online)
	}
	b.refreshDrain()
}

// served records a player the backend answered. It ends any ejection at
// once, since a served player is the best proof there is. The failures
// towards the next ejection fade slowly: each ForgetAfter successes in a
// row forget one, so a backend that fails now and then (a flapping one) is
// ejected after a few failures like one that fails every player, while a
// healthy one's rare failure is forgotten.
func (m *Manager) served(b *backend, firstByte time.Duration) {
	now := m.now()
	b.seenOK.Store(true)
	b.suspect.Store(false)
	b.mu.Lock()
	b.pace.answered(now, firstByte)
	b.limit.Store(b.pace.limit())
	m.passedLocked(b)
	if b.fails == 0 {
		b.loginFail = false
	}
	ev := evNone
	if b.ejected {
		ev = m.recoverLocked(b, now)
	}
	b.mu.Unlock()
	m.logEvent(b, ev, 0)
}

// checkOK records a passing status exchange or probe. An ejected backend
// whose ejection is over needs rise of them in a row (the route's health
// check Rise, DefaultHealthRise without checks), one retest interval apart,
// before it gets players again. Otherwise it clears the failures, unless
// the latest failure was a player's login.
func (m *Manager) checkOK(b *backend) {
	now := m.now()
	b.seenOK.Store(true)
	b.mu.Lock()
	ev := evNone
	switch {
	case b.ejected && now.UnixNano() < b.ejectedUntil.Load():
		// A last-resort exchange during the ejection proves nothing yet.
	case b.ejected:
		hc := b.hc.WithDefaults()
		b.retestOK++
		if b.retestOK >= hc.Rise {
			ev = m.recoverLocked(b, now)
		} else {
			b.retestAt = now.Add(hc.Interval)
		}
	case !b.loginFail:
		b.suspect.Store(false)
		m.passedLocked(b)
	}
	b.mu.Unlock()
	m.logEvent(b, ev, 0)
}

// passedLocked counts one success towards forgetting a failure: each
// ForgetAfter successes in a row forget one. b.mu must be held.
func (m *Manager) passedLocked(b *backend) {
	if b.passed++; b.passed >= ForgetAfter {
		b.fails, b.passed = max(b.fails-1, 0), 0
	}
}

// recoverLocked ends b's ejection and puts it on probation. b.mu must be held.
func (m *Manager) recoverLocked(b *backend, now time.Time) event {
	b.ejected, b.fails, b.passed, b.retestOK = false, 0, 0, 0
	b.ejectedUntil.Store(0)
	b.awaitProbe.Store(false)
	b.recoveredAt = now
	b.probation.Store(now.Add(StableAfter).UnixNano())
	b.outcomes.reset() // the verdict is in: old failures must not keep it out
	b.startRamp()
	return evRecovered
}

// passiveFail records a failed attempt; login says it was a player's.
func (m *Manager) passiveFail(b *backend, login bool) {
	now := m.now()
	nowNS := now.UnixNano()
	b.suspect.Store(true)
	b.mu.Lock()
	b.loginFail = b.loginFail || login
	b.passed = 0
	ev, d := evNone, time.Duration(0)
	switch {
	case b.ejected && b.inEjection(nowNS, m.probing.Load()):
		// Still ejected (or waiting for its probe): nothing new learnt.
	case b.ejected:
		// The first player after the ejection failed: eject again.
		d = m.ejectLocked(b, now)
		ev = evReejected
	case nowNS < b.probation.Load():
		// It failed again before it was stable: no second chance.
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
	if !b.recoveredAt.IsZero() && now.Sub(b.recoveredAt) >= StableAfter {
		// It served for a stable period since it last recovered: start the
		// backoff over.
		b.ejections = 0
	}
	b.ejections++
	d := EjectionDuration(b.ejections)
	d -= time.Duration(m.jitter.Int64N(int64(d/10) + 1))
	b.ejected = true
	b.fails, b.passed, b.retestOK = 0, 0, 0
	b.probation.Store(0)
	until := now.Add(d)
	b.ejectedUntil.Store(until.UnixNano())
	b.retestAt = until
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
// status exchange (one of the rise checks of an ejected backend's retest),
// a failure counts towards the active fall threshold and fails a pending
// retest.
func (m *Manager) applyProbe(b *backend, r Report, err error) {
	b.outcomes.record(err != nil)
	if err == nil {
		m.recordReport(b, r)
		m.checkOK(b)
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
			b.outcomes.reset()
			b.startRamp()
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
		m.log.Info("backend ejected after consecutive failures", "backend", b.addr, "failures", EjectFailures, "for", d)
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
