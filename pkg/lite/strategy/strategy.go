package strategy

import "time"

// Strategy orders one connection's candidates. The manager calls Order once
// per connection with the candidates that currently look usable (all of
// them in panic mode) in config order; the strategy writes a permutation of
// 0..len(cands)-1 into order, which has the same length as cands.
//
// Implementations must be safe for concurrent use, do no I/O, and draw any
// randomness from the seed in their Env so that orders are reproducible.
// A strategy instance belongs to one route and lives as long as the route
// keeps its key and strategy across reloads.
type Strategy interface {
	// Inputs says which Candidate fields the strategy reads, so the manager
	// gathers only those on the hot path.
	Inputs() Inputs
	// Order writes the try order into order.
	Order(cands []Candidate, intent Intent, order []int)
}

// keyed is implemented by strategies that order by the player (sticky): the
// manager calls OrderKey instead of Order when the caller names a player.
type keyed interface {
	OrderKey(cands []Candidate, intent Intent, key string, order []int)
}

// Inputs is a set of optional Candidate fields.
type Inputs uint8

const (
	// InputLatency asks for Latency, HasLatency, Tail, Samples, Failures,
	// Penalty and LastFailed.
	InputLatency Inputs = 1 << iota
	// InputReport asks for Online, Max, HasReport and HasPlayers.
	InputReport
	// InputLoad asks for everything a load estimate needs: the report
	// fields plus ReportAge, ActiveAtReport, Placed, Capacity, Draining,
	// Stuck and Warm.
	InputLoad
)

// Candidate is one backend's live state as a strategy sees it.
type Candidate struct {
	// Addr is the backend address as the route lists it (after templating).
	Addr string
	// Index is the backend's position in the connection's full backend
	// list, so strategies can fall back to config order.
	Index int
	// Active is the number of players this instance has placed on the
	// backend and not yet released. Always filled.
	Active int64
	// Unsettled counts this instance's player attempts in flight to it, not
	// yet answered nor failed; placement load, but not yet players. Always
	// filled.
	Unsettled int64
	// Claimed counts logins this instance ordered onto it (first) in the last
	// ClaimFor that have not reserved yet. Always filled.
	Claimed int64
	// Latency is the smoothed latency; valid only when HasLatency.
	Latency    time.Duration
	HasLatency bool
	// Tail is what the backend's slow logins add on top of Latency (see
	// LatencyTailStrikes); it decays while no slower login comes.
	Tail time.Duration
	// Samples counts the measurements behind Latency; it grows by one per
	// measurement and restarts when the estimate fades.
	Samples uint64
	// Failures is the failed share (permille) of the backend's recent
	// probes and attempts, Penalty what that adds to its latency (see
	// FailurePenalty); LastFailed says its newest probe or dial failed.
	Failures   int64
	Penalty    time.Duration
	LastFailed bool
	// Online and Max come from the last status report; valid only when
	// HasReport. HasPlayers says the report had a plausible players object
	// (max > 0, online >= 0).
	Online, Max int
	HasReport   bool
	HasPlayers  bool

	// ReportAge is how old the report is; valid only when HasReport.
	ReportAge time.Duration
	// ActiveAtReport is what Active was when the report arrived, so a
	// report can be checked against the players this instance alone had
	// placed there.
	ActiveAtReport int64
	// Placed counts the logins placed on the backend since its last report
	// (since it became known, before the first).
	Placed int64
	// Capacity is the configured player capacity of the backend; 0 when
	// none is configured and the report's Max stands.
	Capacity int
	// Held is how many players the backend held when it last turned one
	// away as full (within RefusalMemory); 0 when it has not. It bounds the
	// capacity: refusals are believed over reports.
	Held int
	// Draining says the backend's MOTD matches its drain pattern.
	Draining bool
	// Stuck says the reported players online stayed the same over
	// StuckReports reports in a row while this instance placed players
	// there: the count does not move, so it is not the load.
	Stuck bool
	// Warm is how long ago the backend joined the route by a reload or
	// recovered from ejection or a down verdict; Settled when neither
	// happened recently enough to matter.
	Warm time.Duration
}

// load is the players on the candidate plus the attempts in flight to it and
// the logins ordered onto it that are about to start one.
func (c *Candidate) load() int64 { return c.Active + c.Unsettled + c.Claimed }

// attempted is the players on the candidate plus the attempts in flight to it.
func (c *Candidate) attempted() int64 { return c.Active + c.Unsettled }

// Settled is Candidate.Warm for a backend that is not ramping up.
const Settled = time.Duration(1<<63 - 1)

// Env is what a strategy instance receives when the manager creates it.
type Env struct {
	// Seed is this instance's own seed, derived from the manager's seed.
	Seed uint64
	// Now is the manager's clock.
	Now func() time.Time
}

// Factory creates a strategy instance for one route.
type Factory func(Env) Strategy

// unknownRoute orders the backends of a route the Manager does not know.
// Default keeps no state, so one instance serves every Manager.
var unknownRoute = builtins()[Default](Env{})

// builtins returns a fresh registry of the built-in strategies, so every
// Manager owns its own map.
func builtins() map[Name]Factory {
	return map[Name]Factory{
		Sequential:       func(Env) Strategy { return sequential{} },
		Random:           func(e Env) Strategy { return newRandom(e) },
		RoundRobin:       func(e Env) Strategy { return newRoundRobin(e) },
		LeastConnections: func(e Env) Strategy { return newLeastConn(e) },
		LowestLatency:    func(e Env) Strategy { return newLowestLatency(e) },
		P2C:              func(e Env) Strategy { return newP2C(e) },
		LeastLoaded:      func(e Env) Strategy { return newLeastLoaded(e) },
		WeightedRandom:   func(e Env) Strategy { return newWeightedRandom(e) },
		Sticky:           func(e Env) Strategy { return newSticky(e) },
	}
}
