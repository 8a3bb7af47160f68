package strategy

import "slices"

// leastLoaded puts the backend with the lowest load fraction first, counting
// the player it places (one player weighs more on a small backend): what the
// backends report plus this replica's placements since the report, charged
// once per estimated replica (the load p2c computes, see p2c_load.go). It
// is the choice when many replicas each see only part of the players: the
// reports count everyone's. Saturated and draining backends go after the
// others; ties are random.
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
	tier, peers := evaluate(cands, s.cfg.Load(), &s.peers, ev)
	s.rng.Shuffle(order)
	sortOrder(order, func(a, b int) bool {
		if ev[a].tier != ev[b].tier {
			return ev[a].tier < ev[b].tier
		}
		return ev[a].with < ev[b].with
	})
	// Alone (measured, or configured), this replica's own charges are exact:
	// the least loaded stands. Replicas that started together read themselves
	// alone until a report counts their own players; until then the plan (of
	// one player) breaks ties by capacity, where the shuffle gave each
	// replica's first player to every backend alike.
	if peers <= 1 && (s.cfg.Load().Peers == 1 || s.peers.measured()) {
		return
	}
	var capBuf [p2cStack]int64
	caps := capBuf[:0]
	nominal := nominalCapacity(cands)
	for i := range cands {
		caps = append(caps, capacityOf(&cands[i], nominal))
	}
	// The first pick follows the replicas' common plan (waterfill.go); the
	// rest, for failover, stay by load.
	if first := waterPick(ev, caps, tier, peers, s.rng); first >= 0 {
		k := slices.Index(order, first)
		copy(order[1:k+1], order[:k])
		order[0] = first
	}
}
