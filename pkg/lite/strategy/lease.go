package strategy

import "sync/atomic"

// Lease is one player counted on a backend. Release gives it back exactly
// once, whichever side ends the session first.
type Lease struct {
	m    *Manager
	b    *backend
	done atomic.Bool
}

// Reserve counts one player on addr. The proxy calls it right before
// dialing a login, so least-connections sees the player at pick time, and
// releases it if the dial fails or when the session ends. Status pings
// must not reserve.
func (m *Manager) Reserve(addr string) *Lease {
	m.mu.RLock()
	b := m.backends[addr]
	if b != nil {
		// Counting under the read lock keeps a reload from dropping the
		// state between lookup and increment.
		b.active.Add(1)
	}
	m.mu.RUnlock()
	if b == nil {
		m.mu.Lock()
		if b = m.backends[addr]; b == nil {
			b = newBackend(addr)
			m.backends[addr] = b
		}
		b.active.Add(1)
		b.lastUsed.Store(m.now().UnixNano())
		m.mu.Unlock()
	}
	b.placed.Add(1)
	return &Lease{m: m, b: b}
}

// Release gives the player back. It is idempotent, safe from any goroutine
// and on a nil Lease, so the count never goes negative.
func (l *Lease) Release() {
	if l == nil || !l.done.CompareAndSwap(false, true) {
		return
	}
	l.b.lastUsed.Store(l.m.now().UnixNano())
	l.b.active.Add(-1)
}

// Addr is the backend the lease counts on.
func (l *Lease) Addr() string {
	if l == nil {
		return ""
	}
	return l.b.addr
}
