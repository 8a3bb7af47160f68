package strategy

import (
	"sync/atomic"
	"time"
)

// Loads are fixed point, loadUnit being a full backend, so that scores
// and plans come out the same on every platform (the compiler may fuse
// floating-point operations differently per architecture).
const (
	loadUnit    = 1_000_000
	loadNeutral = loadUnit / 2
	// loadCap bounds a load so that arithmetic on it cannot overflow; a
	// backend four times over its capacity is as bad as it gets.
	loadCap = 4 * loadUnit
)

// nominalCapacityDefault stands in for the capacity of a backend that
// neither reports one nor has one configured, when no other candidate
// knows one either: it only scales this instance's own players into a
// load, so that they still count.
const nominalCapacityDefault = 100

// maxPeers bounds the replica estimate: beyond it each placement is
// charged as a sizeable share of any real backend anyway.
const maxPeers = 64

// LoadSource says where a load estimate came from.
type LoadSource uint8

// The load sources.
const (
	// LoadNeutral: no report yet; the backend counts as half full.
	LoadNeutral LoadSource = iota
	// LoadReport: the backend's report plus the placements since it.
	LoadReport
	// LoadLocal: the report contradicts what this replica knows, so the
	// load is this replica's players times the replica estimate.
	LoadLocal
)

// String names the source for the admin API.
func (s LoadSource) String() string {
	switch s {
	case LoadReport:
		return "report"
	case LoadLocal:
		return "local-estimate"
	}
	return "neutral"
}

// loadOf estimates c's load (0..loadCap): what the backend last reported,
// faded toward neutral as the report ages, plus the placements since the
// report charged peers times each; never below this instance's own
// players. A backend without a report is neutral (half full), not idle;
// one whose report is not believed is estimated from this replica's own
// players, peers times each.
func loadOf(c *Candidate, staleAfter time.Duration, peers, nominal int64) (int64, LoadSource) {
	capacity := capacityOf(c, nominal)
	load, src := int64(loadNeutral), LoadNeutral
	switch {
	case trusted(c):
		// Attempts in flight count as placed: a backend that takes logins and
		// answers none (dark) would otherwise look emptier with every one.
		placed := c.Placed + c.Unsettled
		reported := min(int64(c.Online)*loadUnit/capacity+placed*peers*loadUnit/capacity, loadCap)
		w := freshness(c.ReportAge, staleAfter)
		load, src = (w*reported+(loadUnit-w)*loadNeutral)/loadUnit, LoadReport
	case c.HasReport && c.HasPlayers:
		load, src = min(c.attempted()*peers*loadUnit/capacity, loadCap), LoadLocal
	}
	floor := min(c.attempted()*loadUnit/capacity, loadCap)
	return max(load, floor), src
}

// capacityOf is the configured capacity, else the reported max, else
// nominal; never more than the backend held when it last turned a player
// away as full.
func capacityOf(c *Candidate, nominal int64) int64 {
	capacity := nominal
	switch {
	case c.Capacity > 0:
		capacity = int64(c.Capacity)
	case c.HasReport && c.HasPlayers && c.Max > 0:
		capacity = int64(c.Max)
	}
	if c.Held > 0 && int64(c.Held) < capacity {
		return int64(c.Held)
	}
	return capacity
}

// trusted reports whether c's report is plausible: it has a players
// object, its count moves while players are placed there, and it does not
// claim fewer players than this instance alone had placed there when it
// arrived (with slack for logins still in progress). A server that always
// says 0 fails that test as soon as it has players.
func trusted(c *Candidate) bool {
	if !c.HasReport || !c.HasPlayers || c.Online < 0 || c.Stuck {
		return false
	}
	slack := 2 + c.ActiveAtReport/4
	return int64(c.Online)+slack >= c.ActiveAtReport
}

// freshness weighs a report of the given age in load units: whole until
// staleAfter, then linearly less until nothing at 3x staleAfter.
func freshness(age, staleAfter time.Duration) int64 {
	switch {
	case age <= staleAfter:
		return loadUnit
	case age >= 3*staleAfter:
		return 0
	}
	return int64(3*staleAfter-age) * loadUnit / int64(2*staleAfter)
}

// estimatePeers guesses how many replicas place players on these
// backends: the players the fresh reports count over the players this
// instance had placed when they were taken. Without such reports it is 1,
// the only replica this instance knows of.
func estimatePeers(cands []Candidate, staleAfter time.Duration) int64 {
	est, _ := peerRatio(cands, staleAfter)
	return est
}

// peerRatio is estimatePeers and the own players it rests on.
func peerRatio(cands []Candidate, staleAfter time.Duration) (est, own int64) {
	var online int64
	for i := range cands {
		c := &cands[i]
		if trusted(c) && c.ReportAge <= staleAfter {
			online += int64(c.Online)
			own += c.ActiveAtReport
		}
	}
	if own == 0 {
		return 1, 0
	}
	return min(max((online+own/2)/own, 1), maxPeers), own
}

// peerMemo keeps a route's replica estimate, smoothed over the orders
// that had own players on believed backends to base it on. Without it a
// replica that has placed everyone on a backend whose report is not
// believed would have no own players on the others, estimate itself
// alone, and keep filling that backend; and a ratio over one or two own
// players is too noisy to stand alone.
type peerMemo struct{ v atomic.Int64 } // replicas times peerScale; 0: none yet

const (
	peerScale  = 1000
	peerSmooth = 16 // a new ratio moves the memo by 1/peerSmooth
)

// measured reports whether the estimate rests on reports yet: until it
// does, a replica that reads 1 may be one of many that started together.
func (p *peerMemo) measured() bool { return p.v.Load() != 0 }

// peers returns the replica estimate for cands.
func (p *peerMemo) peers(cands []Candidate, staleAfter time.Duration) int64 {
	est, own := peerRatio(cands, staleAfter)
	old := p.v.Load()
	if own == 0 {
		if old == 0 {
			return est
		}
		return (old + peerScale/2) / peerScale
	}
	next := est * peerScale
	if old != 0 {
		next = old + (next-old)/peerSmooth
	}
	p.v.Store(next) // a lost race loses one order's sample, no more
	return max((next+peerScale/2)/peerScale, 1)
}

// nominalCapacity is the mean capacity of the candidates that know theirs,
// or nominalCapacityDefault.
func nominalCapacity(cands []Candidate) int64 {
	var sum, n int64
	for i := range cands {
		if c := capacityOf(&cands[i], 0); c > 0 {
			sum += c
			n++
		}
	}
	if n == 0 {
		return nominalCapacityDefault
	}
	return sum / n
}
