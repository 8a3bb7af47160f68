package strategy

// leastConn puts the backend with the fewest players this instance placed
// first, attempts still in flight counted as players so that a burst does
// not pile onto the backend that was emptiest when it began. Ties are broken by a shuffle from the route's seeded source, so a
// burst of logins onto idle backends spreads out instead of all landing on
// the first one in config order.
type leastConn struct {
	rng *lockedRand
}

func newLeastConn(e Env) *leastConn {
	return &leastConn{rng: newLockedRand(e.Seed)}
}

func (*leastConn) Inputs() Inputs { return 0 }

func (s *leastConn) Order(cands []Candidate, _ Intent, order []int) {
	identity(order)
	s.rng.Shuffle(order)
	sortOrder(order, func(a, b int) bool { return cands[a].load() < cands[b].load() })
}
