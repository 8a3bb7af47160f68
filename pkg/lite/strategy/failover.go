package strategy

import (
	"slices"
	"time"
)

// RecentAnswer is how long a login answer counts as recent for Failover: a
// backend that let a player in within it is the best bet for a player whose
// attempt just failed.
const RecentAnswer = time.Minute

// Failover tiers are the groups Failover puts a failed login's remaining
// backends in, best first.
const (
	tierAnswered = iota // answered a login within RecentAnswer, nothing failed since
	tierUntried         // no verdict against it, no attempt piling up on it
	tierDoubtful        // its latest outcome failed, attempts hang on it, or it is out
	tierCount
)

// Failover re-orders rest, the backends a login has not tried yet, in place
// after one of its attempts failed. The order Order gave was fixed before
// anything was known about this login; by now other logins may have shown
// which backends answer. Backends that answered a login within RecentAnswer
// (and failed nothing since) come first, then those with no verdict against
// them, then the doubtful ones: the latest outcome failed, attempts are
// unsettled on a backend that has not answered, or health keeps it out.
// Within a tier the strategy's order stays, so the first pick of every login
// (and with it the balance while nothing fails) is the strategy's alone.
// Every address stays in rest. Failover does no I/O and creates no state.
func (m *Manager) Failover(rest []string) {
	if len(rest) < 2 {
		return
	}
	now := m.now().UnixNano()
	probing := m.probing.Load()
	// Routes list a handful of backends: their working memory stays on the stack.
	var smallTiers [16]uint8
	var smallSorted [16]string
	tiers, sorted := smallTiers[:0], smallSorted[:]
	if len(rest) > len(smallTiers) {
		tiers, sorted = make([]uint8, 0, len(rest)), make([]string, len(rest))
	}
	var count [tierCount]int
	m.mu.RLock()
	for _, addr := range rest {
		t := failoverTier(m.backends[addr], now, probing)
		tiers = append(tiers, t)
		count[t]++
	}
	m.mu.RUnlock()
	if slices.Contains(count[:], len(rest)) {
		return // one tier holds them all: the strategy's order stands
	}
	// A stable counting sort: each tier's slots start after the tiers before it.
	var next [tierCount]int
	for t := 1; t < tierCount; t++ {
		next[t] = next[t-1] + count[t-1]
	}
	sorted = sorted[:len(rest)]
	for i, addr := range rest {
		sorted[next[tiers[i]]] = addr
		next[tiers[i]]++
	}
	copy(rest, sorted)
}

// failoverTier places b (nil: no state yet) in a Failover tier at now.
func failoverTier(b *backend, now int64, probing bool) uint8 {
	if b == nil {
		return tierUntried
	}
	why := b.reason(now, probing)
	switch {
	case b.suspect.Load():
		return tierDoubtful
	case why == ReasonBusy && !b.seenOK.Load():
		// Attempts in flight to a backend that never answered: they are
		// likely hanging like the one that just failed.
		return tierDoubtful
	case !why.Usable() && why != ReasonBusy:
		return tierDoubtful
	}
	if at := b.answeredAt.Load(); at != 0 && now-at < int64(RecentAnswer) {
		return tierAnswered
	}
	if why == ReasonBusy {
		return tierDoubtful
	}
	return tierUntried
}
