package strategy

import "time"

// ClaimFor is how long a login order's first pick counts as load on its backend
// before the login reserves it (Reserve). The proxy reserves microseconds after
// ordering; a claim that old belongs to a login that went away without an attempt.
const ClaimFor = time.Second

// A login's order and its first Reserve are two calls: logins ordered at the same
// moment used to see the same counts and pick the same least-loaded backend, so
// a burst of six onto three idle backends could land 1/4/1. The first pick of a
// login order is claimed at once, and least-connections counts claims like
// attempts in flight until the login reserves (or ClaimFor passes).

// claim counts one login order's first pick on b at now (unix ns). Claims left
// by logins that never reserved are dropped once ClaimFor has passed since the
// latest one.
func (b *backend) claim(now int64) {
	if now-b.claimAt.Load() > int64(ClaimFor) {
		b.claims.Store(0)
	}
	b.claimAt.Store(now)
	b.claims.Add(1)
}

// unclaim turns one claim on b into the attempt Reserve counts.
func (b *backend) unclaim() {
	for {
		c := b.claims.Load()
		if c <= 0 || b.claims.CompareAndSwap(c, c-1) {
			return
		}
	}
}

// claimed is how many claims on b count at now.
func (b *backend) claimed(now int64) int64 {
	if now-b.claimAt.Load() > int64(ClaimFor) {
		return 0
	}
	return max(b.claims.Load(), 0)
}
