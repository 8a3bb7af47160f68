package strategy

// weightedRandom draws the first backend with a chance in proportion to
// its headroom, the players it still has room for (capacity times one
// minus its load, the load p2c computes), among the backends that are
// neither saturated nor draining; when none has headroom left, in
// proportion to capacity. Failover goes on by load, ties random. Like random it needs
// no coordination between replicas, and unlike it a backend twice the
// size gets twice the players. A backend's recent failure share lowers
// its chance in proportion (down to a tenth).
type weightedRandom struct{ loadStrategy }

func newWeightedRandom(e Env) *weightedRandom {
	s := &weightedRandom{}
	s.init(e)
	return s
}

// Inputs asks for latency too, for the failure share only.
func (*weightedRandom) Inputs() Inputs { return InputLoad | InputLatency }

func (s *weightedRandom) Order(cands []Candidate, _ Intent, order []int) {
	identity(order)
	if len(cands) < 2 {
		return
	}
	var buf [p2cStack]p2cEval
	ev := evalBuffer(&buf, len(cands))
	tier, _ := evaluate(cands, s.cfg.Load(), &s.peers, ev)
	for i := range ev {
		// A backend whose recent attempts failed is drawn that much less.
		ev[i].weight = ev[i].weight * (1000 - min(cands[i].Failures, 900)) / 1000
	}
	total := headroomWeights(ev, tier)
	first := 0
	if total > 0 {
		first = drawWeighted(ev, tier, s.rng.Int64N(total), -1)
	}
	order[0], order[first] = order[first], order[0]
	s.rng.Shuffle(order[1:])
	sortOrder(order[1:], func(a, b int) bool {
		if ev[a].tier != ev[b].tier {
			return ev[a].tier < ev[b].tier
		}
		return ev[a].load < ev[b].load
	})
}

// headroomWeights replaces the sampling weights of the pool tier by the
// headroom (capacity units left, times the slow-start ramp) and returns
// their sum; when the pool has no headroom left it keeps the capacity
// weights.
func headroomWeights(ev []p2cEval, tier uint8) int64 {
	var capTotal, total int64
	for i := range ev {
		if ev[i].tier != tier {
			continue
		}
		capTotal += ev[i].weight
		total += ev[i].weight * max(loadUnit-ev[i].load, 0) / loadUnit
	}
	if total == 0 {
		return capTotal
	}
	for i := range ev {
		if ev[i].tier == tier {
			ev[i].weight = ev[i].weight * max(loadUnit-ev[i].load, 0) / loadUnit
		}
	}
	return total
}
