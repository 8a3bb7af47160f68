package strategy

// rampPending is backend.warmSince for a backend that recovered and has not
// had a player since: its slow start begins with its first placement, not
// at the verdict, so a recovered backend that no player reaches for a while
// does not find its ramp run out and take a flood at once.
const rampPending = -1

// Slow start holds for every built-in strategy that ranks (by load,
// players or latency; sequential's order is a priority on purpose, random
// and round-robin give every backend its equal turn anyway): a backend that joined by a reload or recovered
// comes first in at most its share of login orders, its capacity's share
// of the pool times its ramp weight (rampWeight: 10% rising to all of it
// over the route's SlowStart). Each login order credits every ramping
// candidate with that share; coming first costs one credit, and without one
// it goes behind the next candidate. Strategies that rank by load or by
// players would otherwise send every player to the empty backend.
// Credits are permille of one placement, capped at rampBurst placements so
// that a lull does not save up for a burst.
const rampBurst = 2 * 1000

// startRamp marks b ramping from its next placement, with one credit: the
// next login order puts it first, whatever the strategy's ranking.
func (b *backend) startRamp() {
	b.warmSince.Store(rampPending)
	b.rampCredit.Store(1000)
}

// placedAfterRamp starts a pending ramp at b's first placement.
func (b *backend) placedAfterRamp(now int64) {
	if b.warmSince.Load() == rampPending {
		b.warmSince.CompareAndSwap(rampPending, now)
	}
}

// gateRamp applies slow start to a login order of r's strategy: order
// indexes cands, whose backends are in sc.bs.
func (m *Manager) gateRamp(r *route, sc *scratch, cands []Candidate, order []int, now int64) {
	slow := r.p2c.SlowStart
	if !r.name.SlowStarts() || slow <= 0 || len(order) < 2 {
		return
	}
	var total, ramping int64
	for i := range cands {
		total += rampCapacity(&cands[i], r.inputs)
		if sc.bs[cands[i].Index].warm(now) < slow {
			ramping++
		}
	}
	if ramping == 0 || total <= 0 {
		return
	}
	for i := range cands {
		b := sc.bs[cands[i].Index]
		warm := b.warm(now)
		if warm >= slow {
			continue
		}
		credit := rampWeight(warm, slow) * rampCapacity(&cands[i], r.inputs) / total
		if c := b.rampCredit.Add(credit); c > rampBurst {
			b.rampCredit.Store(rampBurst)
		}
	}
	// A recovered backend's first player goes there at once: it starts the ramp.
	for k := 1; k < len(order); k++ {
		if b := sc.bs[cands[order[k]].Index]; b.warmSince.Load() == rampPending && b.rampCredit.Load() >= 1000 {
			p := order[k]
			copy(order[1:k+1], order[:k])
			order[0] = p
			break
		}
	}
	first := sc.bs[cands[order[0]].Index]
	if first.warm(now) >= slow {
		return
	}
	if first.takeCredit() {
		return
	}
	// Behind the first candidate that is not ramping, or that pays for coming
	// first with a credit of its own: one swapped to the front for free would
	// take every login its peers have no credit for (issue 32: under churn,
	// with every added backend ramping, one held half the sessions).
	for k := 1; k < len(order); k++ {
		b := sc.bs[cands[order[k]].Index]
		if b.warm(now) >= slow || b.takeCredit() {
			order[0], order[k] = order[k], order[0]
			return
		}
	}
}

// takeCredit spends one of b's ramp credits, if it has one.
func (b *backend) takeCredit() bool {
	if b.rampCredit.Add(-1000) >= 0 {
		return true
	}
	b.rampCredit.Add(1000)
	return false
}

// rampCapacity is c's weight in its pool's shares: its capacity for a
// strategy that reads load, else one.
func rampCapacity(c *Candidate, in Inputs) int64 {
	if in&InputLoad == 0 {
		return 1
	}
	return capacityOf(c, nominalCapacityDefault)
}
