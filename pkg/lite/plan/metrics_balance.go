package plan

import "time"

// balanceRecorder collects the figures of the noise scenarios: how long a
// backend went unmeasured, and how soon a backend that became faster was
// adopted as the preferred one.
type balanceRecorder struct {
	lastProbe []time.Time
	probeGap  time.Duration
	lowered   *mark
	leaders   []leaderAt // replica 0's preferred backend, on change
}

// leaderAt is replica 0's preferred backend from t on.
type leaderAt struct {
	t time.Time
	k int
}

func newBalanceRecorder(n int) balanceRecorder {
	return balanceRecorder{lastProbe: make([]time.Time, n)}
}

// probed notes a probe of backend k at t; the longest gap between two
// probes of one backend (by any replica) is the figure.
func (r *balanceRecorder) probed(k int, t time.Time) {
	if !r.lastProbe[k].IsZero() {
		r.probeGap = max(r.probeGap, t.Sub(r.lastProbe[k]))
	}
	r.lastProbe[k] = t
}

// leader notes replica 0's preferred backend after a connection at t.
func (r *balanceRecorder) leader(s *sim, t time.Time) {
	addr, _, ok := s.reps[0].m.Leader(routeKey)
	if !ok {
		return
	}
	k, known := s.idx[addr]
	if !known {
		k = -1
	}
	if n := len(r.leaders); n == 0 || r.leaders[n-1].k != k {
		r.leaders = append(r.leaders, leaderAt{t: t, k: k})
	}
}

// adoptedAfter is how long after the first latency drop the lowered
// backend became the preferred one for good; never (negative) if it was
// not at the end. ok is false without a drop or a preferred backend.
func (r *balanceRecorder) adoptedAfter() (Span, bool) {
	if r.lowered == nil || len(r.leaders) == 0 {
		return 0, false
	}
	last := r.leaders[len(r.leaders)-1]
	if last.k != r.lowered.k {
		return -1, true
	}
	from := last.t
	// It may have led before the drop already: then it is adopted at once.
	if from.Before(r.lowered.at) {
		from = r.lowered.at
	}
	return Span(from.Sub(r.lowered.at)), true
}

// minShare is the smallest share (percent) of the placed players that a
// live backend got.
func minShare(s *sim) float64 {
	least, any := 0, false
	for k, b := range s.res.Backends {
		if b.Dead || !s.listed[k] {
			continue
		}
		if !any || b.Players < least {
			least, any = b.Players, true
		}
	}
	if !any || s.res.Placed == 0 {
		return 0
	}
	return float64(least*1000/s.res.Placed) / 10
}
