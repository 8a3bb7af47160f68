package strategy

// leastLoaded puts the backend with the lowest load fraction first: what
// the backends report plus this replica's placements since the report,
// charged once per estimated replica (the load p2c computes, see
// p2c_load.go). It is the choice when many replicas each see only part of
// the players: the reports count everyone's. Saturated and draining
// backends go after the others; ties are random.
type leastLoaded struct{ loadStrategy }

func newLeastLoaded(e Env) *leastLoaded {
	s := &leastLoaded{}
	s.init(e)
	return s
}

func (*leastLoaded) Inputs() Inputs { return InputLoad }

func (s *leastLoaded) Order(cands []Candidate, _ Intent, order []int) {
	identity(order)
	var buf [p2cStack]p2cEval
	ev := evalBuffer(&buf, len(cands))
	evaluate(cands, s.cfg.Load(), &s.peers, ev)
	s.rng.Shuffle(order)
	sortOrder(order, func(a, b int) bool {
		if ev[a].tier != ev[b].tier {
			return ev[a].tier < ev[b].tier
		}
		return ev[a].load < ev[b].load
	})
}
