package strategy

import (
	"errors"
	"time"
)

// RefusalMemory is how long a backend's refusal bounds its capacity
// without a new one: long enough to outlast the reports that contradict
// it, short enough that a server whose limit was raised gets its players
// back without a restart.
const RefusalMemory = 5 * time.Minute

// refused records that b turned a player away as full: it held what its
// last report counted plus the players placed since (at least this
// instance's own), and no more fit. Until a report shows it holding more,
// or RefusalMemory passes without another refusal, load-reading
// strategies use that as its capacity, so a server that reports room it
// does not have stops drawing players.
func (m *Manager) refused(b *backend) {
	held := b.active.Load()
	if p := b.report.Load(); p != nil && p.r.HasPlayers {
		held = max(held, int64(p.r.Online)+b.placed.count())
	}
	b.heldCap.Store(max(held, 1))
	b.heldAt.Store(m.now().UnixNano())
}

// held is b's capacity learnt from refusals at now, 0 when none counts.
func (b *backend) held(now int64) int {
	c := b.heldCap.Load()
	if c == 0 || now-b.heldAt.Load() >= int64(RefusalMemory) {
		return 0
	}
	return int(c)
}

// raiseHeld lifts the learnt capacity to what a report shows the backend
// holding: it has room for at least that many.
func (b *backend) raiseHeld(online int) {
	for {
		c := b.heldCap.Load()
		if c == 0 || int64(online) <= c || b.heldCap.CompareAndSwap(c, int64(online)) {
			return
		}
	}
}

// ErrRefused marks an attempt the backend answered with a Login Disconnect in
// a text not known to mean "full": an operator's own "The lobby is at
// capacity", or a ban. The player goes on to the next backend; Settle gives
// no health verdict (the backend answered), and Refused learns it full only
// once another backend took that player.
var ErrRefused = errors.New("backend turned the player away")

// Refused records that each of addrs turned away a player (ErrRefused) whom
// another backend then took: what turned them away was no room, in whatever
// words, so each is learnt full as for ErrFull.
func (m *Manager) Refused(addrs ...string) {
	for _, addr := range addrs {
		m.mu.RLock()
		b := m.backends[addr]
		m.mu.RUnlock()
		if b != nil {
			m.refused(b)
		}
	}
}
