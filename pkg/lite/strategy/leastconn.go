package strategy

// leastConn puts the backend with the fewest players this instance placed
// first, attempts still in flight counted as players so that a burst does
// not pile onto the backend that was emptiest when it began. It sorts
// random's order (the route's seeded shuffle) stably, so ties keep the
// shuffle and a burst of logins onto idle backends spreads out instead of
// all landing on the first one in config order.
type leastConn struct {
	ties *random
}

func newLeastConn(e Env) *leastConn {
	return &leastConn{ties: newRandom(e)}
}

func (*leastConn) Inputs() Inputs { return 0 }

func (s *leastConn) Order(cands []Candidate, intent Intent, order []int) {
	s.ties.Order(cands, intent, order)
	sortOrder(order, func(a, b int) bool { return cands[a].load() < cands[b].load() })
}
