package strategy

import (
	"math"
	"time"
)

// ScoreUnit says what a strategy's Verdict.Score counts; "" for the
// strategies that do not score (sequential, random, round-robin).
func ScoreUnit(n Name) string {
	switch n {
	case LowestLatency:
		return "ms (latency + failure penalty)"
	case P2C:
		return "ms (latency + failure penalty + latencyWeight x load with the player)"
	case LeastConnections:
		return "players placed by this proxy"
	case LeastLoaded:
		return "load (fraction of capacity)"
	case WeightedRandom:
		return "load (fraction of capacity); the first pick is drawn by headroom"
	}
	return ""
}

// LoadVerdict is a load-reading strategy's view of one backend.
type LoadVerdict struct {
	// Load is the estimated fill (1 is full) and Source where it came from.
	Load   float64
	Source LoadSource
	// Capacity is the player capacity the load is a fraction of, and
	// CapacitySource where it came from: configured, reported or nominal.
	Capacity       int64
	CapacitySource string
	// Peers is the replica estimate (or the configured peers).
	Peers int64
	// Saturated: at or above saturation; Full: at or above capacity;
	// Draining: the MOTD matches the drain pattern; Stale: the report is
	// older than staleAfter and fading toward neutral. A saturated, full
	// or draining backend takes players only when no other one can.
	Saturated, Full, Draining, Stale bool
	// Ramp is the slow-start weight in percent of a settled backend's.
	Ramp int
}

// loadReader is implemented by the strategies built on loadStrategy.
type loadReader interface{ loadBase() *loadStrategy }

func (s *loadStrategy) loadBase() *loadStrategy { return s }

// lookupRoute returns the installed route for key, nil if none.
func (m *Manager) lookupRoute(key string) *route {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.routes[key]
}

// score fills the scores of the candidates the route's strategy would
// order, from the same candidate data and evaluation as its Order.
func (m *Manager) score(r *route, sc *scratch, backends []string, all bool, now time.Time, out []Verdict) {
	cands := make([]Candidate, 0, len(backends))
	for i, b := range sc.bs {
		if !sc.inPool(i, all) {
			continue
		}
		c := Candidate{Addr: backends[i], Index: i}
		if b != nil {
			m.peekCandidate(&c, b, r.inputs, now)
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return
	}
	switch s := r.strat.(type) {
	case *lowestLatency:
		// Its score is latency; the load its capacity guard reads is shown beside it.
		explainLoad(cands, s.cfg.Load(), &s.peers, out, scoreNone)
		neutral, ok := neutralLatency(cands)
		for i := range cands {
			if ok || cands[i].HasLatency {
				setScore(&out[cands[i].Index], millis(effLatency(&cands[i], neutral)))
			}
		}
	case *leastConn:
		for i := range cands {
			setScore(&out[cands[i].Index], float64(cands[i].Active))
		}
	case loadReader:
		score := scoreLoad
		if _, isP2C := s.(*p2c); isP2C {
			score = scoreP2C
		}
		ls := s.loadBase()
		explainLoad(cands, ls.cfg.Load(), &ls.peers, out, score)
	}
}

// loadScore is what explainLoad makes a verdict's score.
type loadScore uint8

const (
	scoreLoad loadScore = iota // the load itself
	scoreP2C                   // p2c's score
	scoreNone                  // none: the strategy scores otherwise
)

// peekCandidate is fillCandidate without its side effect (asking the probe
// loop for a latency probe).
func (m *Manager) peekCandidate(c *Candidate, b *backend, in Inputs, now time.Time) {
	m.fillCandidate(c, b, c.Addr, c.Index, in&^InputLatency, now)
	if in&InputLatency != 0 {
		fillLatency(c, b, now)
	}
}

// explainLoad fills the load verdicts, and the score as score says.
func explainLoad(cands []Candidate, cfg *p2cSettings, memo *peerMemo, out []Verdict, score loadScore) {
	ev := make([]p2cEval, len(cands))
	var probe peerMemo // explain must not move the route's memo
	probe.v.Store(memo.v.Load())
	_, peers := evaluate(cands, cfg, &probe, ev)
	nominal := nominalCapacity(cands)
	for i := range cands {
		c, e, v := &cands[i], &ev[i], &out[cands[i].Index]
		lv := &LoadVerdict{Load: float64(e.load) / loadUnit, Source: e.src, Capacity: capacityOf(c, nominal),
			CapacitySource: capacitySource(c), Peers: peers, Saturated: e.load >= cfg.saturation,
			Full: e.load >= loadUnit, Draining: c.Draining, Ramp: int(e.ramp / 10),
			Stale: c.HasReport && c.ReportAge > cfg.StaleAfter}
		v.Load = lv
		switch score {
		case scoreP2C:
			setScore(v, float64(e.score)/1000)
		case scoreLoad:
			setScore(v, math.Round(lv.Load*1000)/1000)
		}
	}
}

// capacitySource names where capacityOf takes c's capacity from.
func capacitySource(c *Candidate) string {
	if c.Held > 0 && int64(c.Held) == capacityOf(c, math.MaxInt64) {
		return "refusals"
	}
	switch {
	case c.Capacity > 0:
		return "configured"
	case c.HasReport && c.HasPlayers && c.Max > 0:
		return "reported"
	}
	return "nominal"
}

func setScore(v *Verdict, s float64) { v.Score, v.HasScore = s, true }

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
