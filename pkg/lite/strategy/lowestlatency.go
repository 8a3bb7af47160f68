package strategy

import (
	"sync"
	"time"
)

// Hysteresis of lowest-latency: the incumbent best changes only when a
// challenger beats it by the margin in this many consecutive probe rounds
// (rounds in which both got a new sample), and not sooner than the
// cooldown after the previous change.
const (
	LatencyConfirmations = 3
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
// first, ties random), unless its login tail puts it beyond the margin of
// the fastest. A backend's latency is its estimate plus its failure
// penalty. A backend without a sample is neutral: it is given the
// mean of the measured latencies, so it is neither the best nor the worst
// until a measurement says otherwise.
type lowestLatency struct {
	now func() time.Time
	rng *lockedRand

	mu       sync.Mutex
	d        LatencyDecision
	incSeen  uint64 // the incumbent's sample count at the last counted round
	chalSeen uint64 // the challenger's
}

func newLowestLatency(e Env) *lowestLatency {
	return &lowestLatency{now: e.Now, rng: newLockedRand(e.Seed)}
}

func (*lowestLatency) Inputs() Inputs { return InputLatency }

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
		return
	}
	s.mu.Lock()
	inc := s.incumbent(cands)
	s.mu.Unlock()

	incLat := effLatency(&cands[inc], neutral)
	limit := incLat + LatencyMargin(incLat)
	// The tail bypasses the hysteresis, which is about noise in the
	// medians: a backend whose logins are sometimes very slow is measured
	// against the fastest whole figure and pays at once, incumbent or not.
	fastest := withTail(&cands[0], neutral)
	for i := range cands[1:] {
		fastest = min(fastest, withTail(&cands[i+1], neutral))
	}
	tailLimit := fastest + LatencyMargin(fastest)
	shares := func(c *Candidate) bool {
		return effLatency(c, neutral) <= limit && withTail(c, neutral) <= tailLimit
	}
	k := 0
	for i := range cands {
		if shares(&cands[i]) {
			order[k] = i
			k++
		}
	}
	shared := k
	for i := range cands {
		if !shares(&cands[i]) {
			order[k] = i
			k++
		}
	}
	s.byLoad(cands, order[:shared])
	sortOrder(order[shared:], func(a, b int) bool {
		return withTail(&cands[a], neutral) < withTail(&cands[b], neutral)
	})
}

// withTail is the candidate's latency with what its slow logins add.
func withTail(c *Candidate, neutral time.Duration) time.Duration {
	return effLatency(c, neutral) + c.Tail
}

// byLoad orders part by active players, ties random.
func (s *lowestLatency) byLoad(cands []Candidate, part []int) {
	s.rng.Shuffle(part)
	sortOrder(part, func(a, b int) bool { return cands[a].Active < cands[b].Active })
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
// chal beat inc: a round is complete when both have a new sample. The
// round that first revealed chal counts as the first.
func (s *lowestLatency) confirm(inc, chal *Candidate) {
	switch {
	case chal.Addr != s.d.Challenger:
		s.d.Challenger, s.d.Confirmations = chal.Addr, 1
		s.incSeen, s.chalSeen = inc.Samples, chal.Samples
	case inc.Samples < s.incSeen || chal.Samples < s.chalSeen:
		// An estimate faded and restarted; count rounds from here.
		s.incSeen, s.chalSeen = inc.Samples, chal.Samples
	case inc.Samples > s.incSeen && chal.Samples > s.chalSeen:
		s.d.Confirmations++
		s.incSeen, s.chalSeen = inc.Samples, chal.Samples
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
