package strategy

import "time"

// ClaimFor is how long a login order's first pick counts as load on its backend
// before the login reserves it (Reserve). The proxy reserves microseconds after
// ordering; a claim that old belongs to a login that went away without an attempt.
const ClaimFor = time.Second

// A login's order and its first Reserve are two calls: logins ordered at the same
// moment used to see the same counts and pick the same least-loaded backend, so a
// burst of six onto three idle backends could land 1/4/1. Login orders are decided
// one at a time (Manager.pick), each claims its first pick, and least-connections
// counts claims like attempts in flight. Reserve turns a claim into an attempt,
// and Settle an attempt into a player, under the same lock, so no order sees a
// login counted twice or not at all.

// claim counts one login order's first pick on b at now (unix ns). Claims left by
// logins that never reserved are dropped once ClaimFor has passed since the
// latest one.
func (b *backend) claim(now int64) {
	if now-b.claimAt.Load() > int64(ClaimFor) {
		b.claims.Store(0)
	}
	b.claimAt.Store(now)
	b.claims.Add(1)
}

// reserveClaimed counts one attempt on b at now, taking over a claim if there is
// one. m.pick makes the two one step for the orders being decided.
func (m *Manager) reserveClaimed(b *backend, now time.Time) {
	if b.claims.Load() <= 0 {
		b.attempt(now)
		return
	}
	m.pick.Lock()
	defer m.pick.Unlock()
	b.attempt(now)
	if c := b.claims.Load(); c > 0 {
		b.claims.Store(c - 1) // claims change only under m.pick
	}
}

// joined moves one attempt on b to its players, in one step for the orders
// being decided: split, a login order could see the player twice, or not at all.
func (m *Manager) joined(b *backend) {
	m.pick.Lock()
	b.active.Add(1)
	b.unsettled.Add(-1)
	m.pick.Unlock()
}

// claimed is how many claims on b count at now.
func (b *backend) claimed(now int64) int64 {
	if now-b.claimAt.Load() > int64(ClaimFor) {
		return 0
	}
	return max(b.claims.Load(), 0)
}
