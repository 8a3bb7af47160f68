package strategy

import (
	"math"
	"sync/atomic"
	"time"
)

// p2cTie is the score difference under which two candidates count as
// equally good and a coin decides, so measurement noise does not make
// every replica prefer the same one.
const p2cTie = time.Millisecond

// p2cStack is how many candidates Order evaluates without allocating;
// bigger routes work too, with one allocation per connection.
const p2cStack = 32

// p2c is power of two choices: it samples two distinct eligible backends,
// each with a chance in proportion to its capacity, and keeps the one with
// the lower score, latency plus LatencyWeight per unit of the load it would
// have with the player (one player weighs more on a small backend). Sampling
// by capacity is what lets a big backend take its share: drawn uniformly,
// no backend could be in more than about 2/n of the pairs. Sampling two at random instead of taking the single best
// is what keeps independent replicas from herding onto the same backend,
// and the load estimate (see p2c_load.go) is what makes them see each other.
//
// Saturated and draining backends are filtered out rather than penalised;
// if that leaves nobody, the pool widens step by step. Backends ramping up
// after a reload or a recovery are sampled with a reduced weight.
type p2c struct{ loadStrategy }

// loadStrategy is what the strategies reading load share: a seeded
// source, the route's settings and its replica estimate.
type loadStrategy struct {
	rng   *lockedRand
	cfg   atomic.Pointer[p2cSettings]
	peers peerMemo
}

func (s *loadStrategy) init(e Env) {
	s.rng = newLockedRand(e.Seed)
	s.configure(P2CConfig{})
}

func (s *loadStrategy) configure(c P2CConfig) { s.cfg.Store(newP2CSettings(c)) }

// p2cSettings is a P2CConfig with defaults applied, in the integer units
// the hot path computes with.
type p2cSettings struct {
	P2CConfig
	weightUS   int64 // latency weight, microseconds per unit of load
	saturation int64 // in load units
}

// p2cEval is one candidate's verdict for one order.
type p2cEval struct {
	score  int64 // microseconds
	tier   uint8 // 0 eligible, 1 saturated but not full, 2 full or draining
	ramp   int64 // slow-start weight, permille of a settled backend
	weight int64 // sampling weight: ramp times capacity
	load   int64 // load units
	with   int64 // load units with one more player: what p2c scores, least-loaded ranks
	src    LoadSource
}

func newP2C(e Env) *p2c {
	s := &p2c{}
	s.init(e)
	return s
}

func (*p2c) Inputs() Inputs { return InputLatency | InputLoad }

// newP2CSettings applies c's defaults and converts it to hot-path units;
// least-loaded and weighted-random share it.
func newP2CSettings(c P2CConfig) *p2cSettings {
	c = c.WithDefaults()
	return &p2cSettings{
		P2CConfig:  c,
		weightUS:   c.LatencyWeight.Microseconds(),
		saturation: int64(math.Round(c.Saturation * loadUnit)),
	}
}

// evalBuffer returns n evaluations, from buf when they fit.
func evalBuffer(buf *[p2cStack]p2cEval, n int) []p2cEval {
	if n <= len(buf) {
		return buf[:n]
	}
	return make([]p2cEval, n)
}

func (s *p2c) Order(cands []Candidate, _ Intent, order []int) {
	identity(order)
	n := len(cands)
	if n < 2 {
		return
	}
	var buf [p2cStack]p2cEval
	ev := evalBuffer(&buf, n)
	cfg := s.cfg.Load()
	tier, _ := evaluate(cands, cfg, &s.peers, ev)
	first, second := s.pick(ev, tier)
	order[0] = first
	head := 1
	if second >= 0 {
		order[1] = second
		head = 2
	}
	k := head
	for i := range ev {
		if i != first && i != second {
			order[k] = i
			k++
		}
	}
	// Failover goes on with the rest by score, eligible tiers first.
	sortOrder(order[head:], func(a, b int) bool {
		if ev[a].tier != ev[b].tier {
			return ev[a].tier < ev[b].tier
		}
		return ev[a].score < ev[b].score
	})
}

// evaluate scores every candidate into ev and returns the lowest tier
// present, the pool the two choices are drawn from, and the replica
// estimate it used. A candidate's latency includes its failure penalty.
func evaluate(cands []Candidate, cfg *p2cSettings, memo *peerMemo, ev []p2cEval) (uint8, int64) {
	neutralLat, _ := neutralLatency(cands)
	peers := int64(cfg.Peers)
	if peers <= 0 {
		peers = memo.peers(cands, cfg.StaleAfter)
	}
	nominal := nominalCapacity(cands)
	best := uint8(2)
	for i := range cands {
		c := &cands[i]
		e := &ev[i]
		capacity := capacityOf(c, nominal)
		e.load, e.src = loadOf(c, cfg.StaleAfter, peers, nominal)
		e.with = min(e.load+loadUnit/capacity, loadCap)
		e.score = effLatency(c, neutralLat).Microseconds() + cfg.weightUS*e.with/loadUnit
		switch {
		case !c.Draining && e.load < cfg.saturation:
			e.tier = 0
		case !c.Draining && e.load < loadUnit:
			e.tier = 1
		default:
			e.tier = 2
		}
		best = min(best, e.tier)
		e.ramp = rampWeight(c.Warm, cfg.SlowStart)
		e.weight = e.ramp * capacity
	}
	return best, peers
}

// rampWeight is the sampling weight (permille) of a backend that joined or
// recovered warm ago: from SlowStartFloor of a settled backend's at once,
// rising linearly to all of it after slowStart.
func rampWeight(warm, slowStart time.Duration) int64 {
	const full = 1000
	if slowStart <= 0 || warm >= slowStart {
		return full
	}
	w := int64(warm) * full / int64(slowStart)
	return max(w, int64(SlowStartFloor*full))
}

// pick draws two distinct candidates of the pool tier, weighted by their
// ramp and capacity, and returns the better one first; second is -1 when the pool has
// one member.
func (s *p2c) pick(ev []p2cEval, tier uint8) (first, second int) {
	var total int64
	only, count := -1, 0
	for i := range ev {
		if ev[i].tier == tier {
			total += ev[i].weight
			only = i
			count++
		}
	}
	if count == 1 {
		return only, -1
	}
	s.rng.mu.Lock()
	a := drawWeighted(ev, tier, s.rng.r.Int64N(total), -1)
	b := drawWeighted(ev, tier, s.rng.r.Int64N(total-ev[a].weight), a)
	// A tie goes to a with its share of the pair's weight: at equal load a
	// backend ten times bigger has ten times the room (a fair coin sent the
	// first players of every replica to the small backend of each pair).
	heads := s.rng.r.Int64N(ev[a].weight+ev[b].weight) < ev[a].weight
	s.rng.mu.Unlock()
	d := ev[a].score - ev[b].score
	tie := p2cTie.Microseconds()
	if d <= -tie || (d < tie && heads) {
		return a, b
	}
	return b, a
}

// drawWeighted returns the pool member (tier, not skip) in which the
// cumulative weight passes r.
func drawWeighted(ev []p2cEval, tier uint8, r int64, skip int) int {
	last := -1
	for i := range ev {
		if ev[i].tier != tier || i == skip {
			continue
		}
		last = i
		if r < ev[i].weight {
			return i
		}
		r -= ev[i].weight
	}
	return last
}
