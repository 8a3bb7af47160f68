package strategy

import (
	"errors"
	"sync/atomic"
	"time"
)

// ErrNotBackend marks an attempt that failed for a reason of the proxy's own
// (out of file descriptors, the global connection cap): Settle leaves the
// backend's health alone for an error that wraps it.
var ErrNotBackend = errors.New("the proxy's own limit, not the backend's fault")

// ErrFull marks an attempt the backend answered by turning the player away
// because it has no room (a Login Disconnect saying so, right after the
// login). Settle counts it as a failure like any other, and also as load:
// whatever the backend reports, it holds no more players than it did then
// (see refusal.go).
var ErrFull = errors.New("backend refused the login: full")

// MaxUnsettled is how many player attempts may be in flight, unsettled, to
// one backend before the order demotes it (ReasonBusy): a healthy server
// settles an attempt in milliseconds, so attempts that pile up are a signal
// in themselves. It equals EjectFailures, so the attempts in flight when a
// backend dies are at most the failures that eject it. A backend whose
// latest attempt failed with no success since, one on probation after a
// recovery, and one that has never answered while its attempts stall get one
// attempt at a time (doubtful).
const MaxUnsettled = EjectFailures

// Lease states.
const (
	leaseUnsettled uint32 = iota // reserved, dialing or waiting for the first byte
	leaseJoined                  // the backend answered: the player counts on it
	leaseDone                    // released, or failed
)

// Lease is one player attempt on a backend, then (once settled with
// success) one player counted on it. Every method is safe from any
// goroutine and on a nil Lease; the counts move exactly once per lease.
type Lease struct {
	m     *Manager
	b     *backend
	at    int64 // when it was reserved, unix ns (manager clock)
	state atomic.Uint32
}

// Reserve starts one player attempt on addr: it counts as unsettled, which
// bounds the attempts in flight (MaxUnsettled) and is load for
// least-connections, until Settle. The proxy calls it right before dialing a
// login, and Release when the session ends or the attempt is abandoned.
// Status pings must not reserve.
func (m *Manager) Reserve(addr string) *Lease {
	now := m.now()
	m.mu.RLock()
	b := m.backends[addr]
	if b != nil {
		// Counting under the read lock keeps a reload from dropping the
		// state between lookup and increment.
		m.reserveClaimed(b, now)
	}
	m.mu.RUnlock()
	if b == nil {
		m.mu.Lock()
		if b = m.backends[addr]; b == nil {
			b = newBackend(addr, &m.answered)
			m.backends[addr] = b
			m.targets = nil
		}
		b.attempt(now)
		b.lastUsed.Store(now.UnixNano())
		m.mu.Unlock()
	}
	return &Lease{m: m, b: b, at: now.UnixNano()}
}

// Settle ends the attempt, once; later calls do nothing. err nil means the
// backend's first byte arrived firstByte after the preamble was sent: the
// player joins (Active and the placements since the last report count it)
// and the backend has served. A non-nil err is a failure of the backend
// towards ejection, exactly like a refused dial, unless it wraps
// context.Canceled (the player left) or ErrNotBackend; then the attempt is
// dropped with no verdict.
func (l *Lease) Settle(firstByte time.Duration, err error) {
	if l == nil {
		return
	}
	next := leaseJoined
	if err != nil {
		next = leaseDone
	}
	if !l.state.CompareAndSwap(leaseUnsettled, next) {
		return
	}
	b, m := l.b, l.m
	if err == nil {
		m.joined(b)
		nowNS := m.now().UnixNano()
		b.placed.add(nowNS)
		b.answeredAt.Store(nowNS)
		b.pendingSince.Store(nowNS) // an answer: the attempts left are younger
		storeMax(&m.answered, l.at)
		m.wakeStalled(nowNS)
		b.placedAfterRamp(nowNS)
		m.observeFirstByte(b, firstByte)
		m.served(b, firstByte)
		return
	}
	b.unsettled.Add(-1)
	b.lastUsed.Store(m.now().UnixNano())
	if noVerdict(err) {
		return
	}
	if errors.Is(err, ErrFull) {
		m.refused(b)
	}
	if errors.Is(err, ErrNoAnswer) {
		b.markLate(m.now().UnixNano())
	}
	b.outcomes.record(true)
	m.passiveFail(b, true)
}

// Release gives the lease back, once, whichever side ends the session
// first: a joined player leaves the backend's count, an attempt never
// settled is dropped with no verdict. Safe after Settle with an error.
func (l *Lease) Release() {
	if l == nil {
		return
	}
	for {
		switch st := l.state.Load(); st {
		case leaseDone:
			return
		case leaseUnsettled, leaseJoined:
			if !l.state.CompareAndSwap(st, leaseDone) {
				continue
			}
			l.b.lastUsed.Store(l.m.now().UnixNano())
			if st == leaseJoined {
				l.b.active.Add(-1)
			} else {
				l.b.unsettled.Add(-1)
			}
			return
		}
	}
}

// Joined reports whether the attempt settled with success and the lease
// is not yet released.
func (l *Lease) Joined() bool { return l != nil && l.state.Load() == leaseJoined }

// Addr is the backend the lease counts on.
func (l *Lease) Addr() string {
	if l == nil {
		return ""
	}
	return l.b.addr
}

// observeFirstByte records one first-byte time (preamble sent to the
// backend's first byte) of a settled login: the server's own answer time.
// It is a latency sample, so a server that lags shows up even while its
// network answers fast.
func (m *Manager) observeFirstByte(b *backend, d time.Duration) {
	b.firstByte.Store(int64(d))
	m.lat.addLogin(b, d)
}
