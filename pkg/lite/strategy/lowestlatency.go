package strategy

import (
	"sync"
	"sync/atomic"
	"time"
)

// Hysteresis of lowest-latency: the incumbent best changes only when a
// challenger beats it by the margin in this many consecutive probe rounds
// (rounds in which both got a new sample), and not sooner than the
// cooldown after the previous change.
// A round counts only LatencyRoundSpacing after the previous counted one:
// with a probe every second, three rounds in a row would be three medians
// that share most of their samples, one piece of evidence three times.
const (
	LatencyConfirmations = 3
	LatencyRoundSpacing  = 8 * time.Second
	LatencyCooldown      = 30 * time.Second
	LatencyMinMargin     = 20 * time.Millisecond
	LatencyMarginPercent = 15
)

// LatencyMargin is the advantage a challenger needs over an incumbent with
// latency lat: max(20ms, 15% of lat). Backends within it of the incumbent
// count as equally good and share new players by load.
func LatencyMargin(lat time.Duration) time.Duration {
	return max(LatencyMinMargin, lat*LatencyMarginPercent/100)
}

// lowestLatency prefers the fastest backend without herding: it keeps an
// incumbent best that changes only with hysteresis, and every backend
// within the margin of the incumbent shares players by load (fewest active
// first, ties random), unless its login tail puts it beyond that margin.
// A backend's latency is its estimate plus its failure
// penalty. A backend without a sample is neutral: it is given the
// mean of the measured latencies, so it is neither the best nor the worst
// until a measurement says otherwise.
type lowestLatency struct {
	now func() time.Time
	rng *lockedRand

	mu        sync.Mutex
	d         LatencyDecision
	incSeen   uint64    // the incumbent's sample count at the last counted round
	chalSeen  uint64    // the challenger's
	lastRound time.Time // when the last round was counted

	// The capacity guard reads load as p2c does, with the route's saturation.
	cfg   atomic.Pointer[p2cSettings]
	peers peerMemo
}

func newLowestLatency(e Env) *lowestLatency {
	s := &lowestLatency{now: e.Now, rng: newLockedRand(e.Seed)}
	s.configure(P2CConfig{})
	return s
}

func (s *lowestLatency) configure(c P2CConfig) { s.cfg.Store(newP2CSettings(c)) }

func (*lowestLatency) Inputs() Inputs { return InputLatency | InputLoad }

// effLatency is candidate i's latency as lowest-latency ranks it.
func effLatency(c *Candidate, neutral time.Duration) time.Duration {
	if c.HasLatency {
		return c.Latency + c.Penalty
	}
	return neutral + c.Penalty
}

func (s *lowestLatency) Order(cands []Candidate, _ Intent, order []int) {
	neutral, ok := neutralLatency(cands)
	if !ok {
		// Nothing measured yet: every backend is neutral, so share by load.
		identity(order)
		s.byLoad(cands, order)
		s.guard(cands, order)
		return
	}
	s.mu.Lock()
	inc := s.incumbent(cands)
	s.mu.Unlock()

	incLat := effLatency(&cands[inc], neutral)
	// The incumbent keeps its share while the noise in the medians could
	// explain the lead a challenger shows, but not beyond twice the margin
	// of the fastest: a server that turned slow for real is left at once,
	// while the title waits for its confirmations.
	fastest := effLatency(&cands[0], neutral)
	for i := range cands[1:] {
		fastest = min(fastest, effLatency(&cands[i+1], neutral))
	}
	limit := min(incLat+LatencyMargin(incLat), fastest+2*LatencyMargin(fastest))
	// The tail counts against the limit but not in the title: the
	// hysteresis is about noise in the medians, and a backend whose logins
	// are sometimes very slow pays at once, incumbent or not.
	k := 0
	for i := range cands {
		if withTail(&cands[i], neutral) <= limit {
			order[k] = i
			k++
		}
	}
	shared := k
	for i := range cands {
		if withTail(&cands[i], neutral) > limit {
			order[k] = i
			k++
		}
	}
	s.byLoad(cands, order[:shared])
	sortOrder(order[shared:], func(a, b int) bool {
		return withTail(&cands[a], neutral) < withTail(&cands[b], neutral)
	})
	s.guard(cands, order)
}

// guard is lowest-latency's capacity guard: backends at or above the route's
// saturation (their reports plus the players placed since, as p2c reads load),
// and draining ones, go behind those with room, the order kept within each. The
// fastest backend takes every new player only while it has room for them. A
// backend whose capacity nobody knows (no players in its reports, none
// configured or learnt from a refusal) has room.
func (s *lowestLatency) guard(cands []Candidate, order []int) {
	var buf [p2cStack]p2cEval
	ev := evalBuffer(&buf, len(cands))
	evaluate(cands, s.cfg.Load(), &s.peers, ev)
	for i := range cands {
		if capacityOf(&cands[i], 0) == 0 && !cands[i].Draining {
			ev[i].tier = 0
		}
	}
	sortOrder(order, func(a, b int) bool { return ev[a].tier < ev[b].tier })
}

// withTail is the candidate's latency with what its slow logins add.
func withTail(c *Candidate, neutral time.Duration) time.Duration {
	return effLatency(c, neutral) + c.Tail
}

// byLoad orders part by active players and attempts in flight, ties random.
func (s *lowestLatency) byLoad(cands []Candidate, part []int) {
	s.rng.Shuffle(part)
	sortOrder(part, func(a, b int) bool { return cands[a].attempted() < cands[b].attempted() })
}

// incumbent returns the position of the incumbent best among cands, moving
// the title to a challenger once hysteresis allows, and records why it
// did not move. s.mu must be held and at least one candidate must be
// measured.
func (s *lowestLatency) incumbent(cands []Candidate) int {
	best, cur := -1, -1
	allFailed := true
	for i := range cands {
		c := &cands[i]
		if !c.HasLatency {
			continue
		}
		allFailed = allFailed && c.LastFailed
		if c.Addr == s.d.Best {
			cur = i
		}
		if best < 0 || effLatency(c, 0) < effLatency(&cands[best], 0) {
			best = i
		}
	}
	switch {
	case cur < 0:
		// The incumbent left the candidates or its sample faded: there is
		// nothing to defend, so the best measured one takes over at once.
		if s.d.Best != "" && s.d.Best != cands[best].Addr {
			s.d.count(ChangeIncumbentGone)
		}
		s.d.Best, s.d.Hold = cands[best].Addr, HoldIncumbentBest
		s.resetChallenger()
		return best
	case allFailed:
		// Every probe failed: what is known stays as it was.
		s.d.Hold = HoldAllProbesFailed
		return cur
	case best == cur:
		s.d.Hold = HoldIncumbentBest
		s.resetChallenger()
		return cur
	}
	incLat, bestLat := effLatency(&cands[cur], 0), effLatency(&cands[best], 0)
	if incLat-bestLat < LatencyMargin(incLat) {
		s.d.Hold = HoldInsufficientAdvantage
		s.resetChallenger()
		return cur
	}
	s.confirm(&cands[cur], &cands[best])
	if s.d.Confirmations < LatencyConfirmations {
		s.d.Hold = HoldUnstable
		return cur
	}
	now := s.now()
	if !s.d.LastSwitch.IsZero() && now.Sub(s.d.LastSwitch) < LatencyCooldown {
		s.d.Hold = HoldCooldown
		return cur
	}
	s.d.Best, s.d.LastSwitch, s.d.Hold = s.d.Challenger, now, HoldIncumbentBest
	s.d.count(ChangeConfirmed)
	s.resetChallenger()
	return best
}

func (s *lowestLatency) resetChallenger() {
	s.d.Challenger, s.d.Confirmations = "", 0
}

// confirm counts the probe rounds, since the last evaluation, in which
// chal beat inc: a round is complete when both have a new sample and
// LatencyRoundSpacing has passed since the last counted one. The round
// that first revealed chal counts as the first.
func (s *lowestLatency) confirm(inc, chal *Candidate) {
	now := s.now()
	switch {
	case chal.Addr != s.d.Challenger:
		s.d.Challenger, s.d.Confirmations = chal.Addr, 1
		s.incSeen, s.chalSeen, s.lastRound = inc.Samples, chal.Samples, now
	case inc.Samples < s.incSeen || chal.Samples < s.chalSeen:
		// An estimate faded and restarted; count rounds from here.
		s.incSeen, s.chalSeen = inc.Samples, chal.Samples
	case inc.Samples > s.incSeen && chal.Samples > s.chalSeen && now.Sub(s.lastRound) >= LatencyRoundSpacing:
		s.d.Confirmations++
		s.incSeen, s.chalSeen, s.lastRound = inc.Samples, chal.Samples, now
	}
}

// decision returns the current decision state.
func (s *lowestLatency) decision() LatencyDecision {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.d
	d.Needed = LatencyConfirmations
	return d
}

// state reports the incumbent and the time of its last measured change.
func (s *lowestLatency) state() (string, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.d.Best, s.d.LastSwitch
}

// Leader returns the incumbent and how often it changed.
func (s *lowestLatency) Leader() (string, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.d.Best, s.d.Changes[ChangeConfirmed] + s.d.Changes[ChangeIncumbentGone]
}

// neutralLatency is the mean of the measured latencies; ok is false when
// nothing is measured.
func neutralLatency(cands []Candidate) (time.Duration, bool) {
	var sum time.Duration
	n := 0
	for i := range cands {
		if cands[i].HasLatency {
			sum += cands[i].Latency
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / time.Duration(n), true
}
