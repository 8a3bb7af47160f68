package strategy

import (
	"sync"
	"time"
)

// Hysteresis of lowest-latency: the incumbent best changes only when a
// challenger beats it by the margin on this many consecutive measurements,
// and not sooner than the cooldown after the previous change.
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
// first, ties random). A backend without a sample is neutral: it is given
// the mean of the measured latencies, so it is neither the best nor the
// worst until a measurement says otherwise.
type lowestLatency struct {
	now func() time.Time
	rng *lockedRand

	mu       sync.Mutex
	inc      string    // incumbent best
	chal     string    // challenger currently beating inc by the margin
	confirms uint64    // consecutive measurements confirming chal
	seen     uint64    // inc+chal sample count at the last evaluation
	switched time.Time // last measured change of inc; zero before the first
	changes  uint64    // times inc moved from one backend to another
}

func newLowestLatency(e Env) *lowestLatency {
	return &lowestLatency{now: e.Now, rng: newLockedRand(e.Seed)}
}

func (*lowestLatency) Inputs() Inputs { return InputLatency }

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

	eff := func(i int) time.Duration {
		if cands[i].HasLatency {
			return cands[i].Latency
		}
		return neutral
	}
	limit := cands[inc].Latency + LatencyMargin(cands[inc].Latency)
	k := 0
	for i := range cands {
		if eff(i) <= limit {
			order[k] = i
			k++
		}
	}
	shared := k
	for i := range cands {
		if eff(i) > limit {
			order[k] = i
			k++
		}
	}
	s.byLoad(cands, order[:shared])
	sortOrder(order[shared:], func(a, b int) bool { return eff(a) < eff(b) })
}

// byLoad orders part by active players, ties random.
func (s *lowestLatency) byLoad(cands []Candidate, part []int) {
	s.rng.Shuffle(part)
	sortOrder(part, func(a, b int) bool { return cands[a].Active < cands[b].Active })
}

// incumbent returns the position of the incumbent best among cands, moving
// the title to a challenger once hysteresis allows. s.mu must be held and
// at least one candidate must be measured.
func (s *lowestLatency) incumbent(cands []Candidate) int {
	best, cur := -1, -1
	for i := range cands {
		c := &cands[i]
		if !c.HasLatency {
			continue
		}
		if c.Addr == s.inc {
			cur = i
		}
		if best < 0 || c.Latency < cands[best].Latency {
			best = i
		}
	}
	if cur < 0 {
		// The incumbent left the candidates or its sample faded: there is
		// nothing to defend, so the best measured one takes over at once.
		if s.inc != "" && s.inc != cands[best].Addr {
			s.changes++
		}
		s.inc, s.chal, s.confirms = cands[best].Addr, "", 0
		return best
	}
	if cands[cur].Latency-cands[best].Latency < LatencyMargin(cands[cur].Latency) {
		s.chal, s.confirms = "", 0
		return cur
	}
	s.confirm(cands[best].Addr, cands[cur].Samples+cands[best].Samples)
	if s.confirms < LatencyConfirmations {
		return cur
	}
	now := s.now()
	if !s.switched.IsZero() && now.Sub(s.switched) < LatencyCooldown {
		return cur
	}
	s.inc, s.chal, s.confirms, s.switched = s.chal, "", 0, now
	s.changes++
	return best
}

// confirm counts the measurements taken since the last evaluation that
// still show chal ahead; the measurement that first revealed it counts too.
func (s *lowestLatency) confirm(chal string, samples uint64) {
	switch {
	case chal != s.chal:
		s.chal, s.confirms, s.seen = chal, 1, samples
	case samples > s.seen:
		s.confirms += samples - s.seen
		s.seen = samples
	case samples < s.seen:
		// An estimate faded and restarted; count from here.
		s.seen = samples
	}
}

// state reports the incumbent and the time of its last measured change.
func (s *lowestLatency) state() (string, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inc, s.switched
}

// Leader returns the incumbent and how often it changed.
func (s *lowestLatency) Leader() (string, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inc, s.changes
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
