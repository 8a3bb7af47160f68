package plan

import (
	"strconv"
	"time"
)

// Quality metric parameters.
const (
	// nearFullPermille is the fill (of capacity) from which a placement
	// counts as into a nearly full backend.
	nearFullPermille = 900
	// newShareWindow is how many connections after a backend is added its
	// share is measured over.
	newShareWindow = 100
	// shedPercent is the share of new players under which a degraded
	// backend counts as shed.
	shedPercent = 5
	// shedWindowConns and shedWindowMin size the windows the degraded
	// backend's share is measured in: 20 connections, at least 10 s.
	shedWindowConns = 20
	shedWindowMin   = 10 * time.Second
)

// Metrics are the quality figures of one run. Pointer fields are nil when
// the run has nothing to measure them on (no backend added, none dead, no
// latency raised, a strategy without a single preferred backend).
type Metrics struct {
	// MaxOverFair is the busiest live backend's share of the players over
	// its fair share: 1/n, or its part of the total capacity when every
	// live backend has one. 1.00 is perfect.
	MaxOverFair float64 `json:"maxOverFair"`
	// FirstPlayerAfter counts the connections after the first added
	// backend joined until one of them landed on it; -1 if none did.
	FirstPlayerAfter *int `json:"firstPlayerAfter,omitempty"`
	// NewShareNext100 is the added backend's share (percent) of the 100
	// connections after it joined.
	NewShareNext100 *float64 `json:"newShareNext100,omitempty"`
	// DeadDialsPerReplica is the most player dials one replica made to one
	// dead backend (the price of shedding it).
	DeadDialsPerReplica *int `json:"deadDialsPerReplica,omitempty"`
	// ShedAfter is how long after the first latency rise the raised
	// backend's share of new players fell, for good, below 5%, measured in
	// windows of 20 connections (at least 10 s); negative if it never did.
	ShedAfter *Span `json:"shedAfter,omitempty"`
	// FlapsPerHour is how often a replica's preferred backend changed, per
	// hour, averaged over replicas (strategies that keep one only).
	FlapsPerHour *float64 `json:"flapsPerHour,omitempty"`
	// IntoNearFull counts placements onto backends at or above 90% of
	// their capacity.
	IntoNearFull int `json:"intoNearFull"`
	// MinShare is the smallest share (percent) of the players a live
	// backend got.
	MinShare float64 `json:"minShare"`
	// ProbeGap is the longest time one backend went without a probe.
	ProbeGap *Span `json:"probeGap,omitempty"`
	// AdoptedAfter is how long after a backend became faster it was the
	// preferred one for good (strategies that keep one only).
	AdoptedAfter *Span `json:"adoptedAfter,omitempty"`
}

// Span is a duration that may be "never" (negative).
type Span time.Duration

func (s Span) String() string {
	if s < 0 {
		return "never"
	}
	return time.Duration(s).String()
}

// MarshalJSON encodes s as Go duration text, or "never".
func (s Span) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// conn is one connection's outcome: the backend it landed on, or -1.
type conn struct {
	t time.Time
	k int
}

// mark is an event that a metric measures from: where in the connection
// log it happened.
type mark struct {
	k    int
	at   time.Time
	conn int // index of the first connection at or after it
}

// recorder collects what the metrics need while the plan runs.
type recorder struct {
	window   time.Duration
	conns    []conn
	added    *mark
	raised   *mark
	nearFull int
	balanceRecorder
}

func newRecorder(o Options, n int) recorder {
	return recorder{window: max(shedWindowMin, shedWindowConns*o.Arrival), conns: make([]conn, 0, o.Count),
		balanceRecorder: newBalanceRecorder(n)}
}

func (r *recorder) connection(t time.Time, k int) { r.conns = append(r.conns, conn{t: t, k: k}) }

// placed notes a placement onto a backend holding active of capacity.
func (r *recorder) placed(k, active, capacity int) {
	if capacity > 0 && active*1000 >= capacity*nearFullPermille {
		r.nearFull++
	}
}

// event notes the first add, the first latency or server rise and the
// first latency drop.
func (r *recorder) event(e Event, at time.Time, s *sim) {
	m := &mark{k: s.idx[e.Backend], at: at, conn: len(r.conns)}
	switch {
	case e.Kind == EventAdd && r.added == nil:
		r.added = m
	case (e.Kind == EventLatency || e.Kind == EventServer) && r.raised == nil && s.raises(e):
		r.raised = m
	case e.Kind == EventLatency && r.lowered == nil && !s.raises(e):
		r.lowered = m
	}
}

// metrics computes the figures at the end of the run.
func (r *recorder) metrics(s *sim, end time.Time) Metrics {
	m := Metrics{MaxOverFair: maxOverFair(s), IntoNearFull: r.nearFull, MinShare: minShare(s)}
	if r.probeGap > 0 {
		gap := Span(r.probeGap)
		m.ProbeGap = &gap
	}
	if a, ok := r.adoptedAfter(); ok {
		m.AdoptedAfter = &a
	}
	if a := r.added; a != nil {
		first, share := r.newBackend(a)
		m.FirstPlayerAfter, m.NewShareNext100 = &first, &share
	}
	if d, ok := deadDials(s); ok {
		m.DeadDialsPerReplica = &d
	}
	if r.raised != nil {
		shed := r.shedAfter(r.raised, end)
		m.ShedAfter = &shed
	}
	if f, ok := flapsPerHour(s, end); ok {
		m.FlapsPerHour = &f
	}
	return m
}

// maxOverFair compares each live backend's share with its fair share.
func maxOverFair(s *sim) float64 {
	var live []int
	sumCap, placed, withCap := 0, 0, true
	for k, b := range s.res.Backends {
		if b.Dead || !s.listed[k] {
			continue
		}
		live = append(live, k)
		sumCap += s.o.Capacity[b.Addr]
		placed += b.Players
		withCap = withCap && s.o.Capacity[b.Addr] > 0
	}
	if placed == 0 {
		return 0
	}
	best := 0.0
	for _, k := range live {
		num, den := s.res.Backends[k].Players*len(live), placed
		if withCap {
			num, den = s.res.Backends[k].Players*sumCap, placed*s.o.Capacity[s.o.Backends[k]]
		}
		best = max(best, float64(num*1000/den)/1000)
	}
	return best
}

// newBackend measures the added backend: connections until its first
// player, and its share of the next newShareWindow connections.
func (r *recorder) newBackend(a *mark) (first int, share float64) {
	first = -1
	after := r.conns[a.conn:]
	for i, c := range after {
		if c.k == a.k {
			first = i + 1
			break
		}
	}
	window := after[:min(newShareWindow, len(after))]
	if len(window) == 0 {
		return first, 0
	}
	got := 0
	for _, c := range window {
		if c.k == a.k {
			got++
		}
	}
	return first, float64(got*1000/len(window)) / 10
}

// shedAfter finds the first window after the rise from which on the
// raised backend's share of placements stays below shedPercent.
func (r *recorder) shedAfter(m *mark, end time.Time) Span {
	n := int(end.Sub(m.at)/r.window) + 1
	on, all := make([]int, n), make([]int, n)
	for _, c := range r.conns[m.conn:] {
		j := min(int(c.t.Sub(m.at)/r.window), n-1)
		if c.k >= 0 {
			all[j]++
		}
		if c.k == m.k {
			on[j]++
		}
	}
	shed := -1
	for j := n - 1; j >= 0; j-- {
		if on[j]*100 >= all[j]*shedPercent && all[j] > 0 {
			break
		}
		shed = j
	}
	if shed < 0 {
		return -1 // still above at the end
	}
	return Span(time.Duration(shed+1) * r.window)
}

// deadDials is the most player dials one replica made to one backend that
// was dead at some point.
func deadDials(s *sim) (int, bool) {
	most, any := 0, false
	for k, b := range s.res.Backends {
		if !b.Dead {
			continue
		}
		any = true
		for _, rep := range s.reps {
			most = max(most, rep.deadDials[k])
		}
	}
	return most, any
}

// flapsPerHour averages the replicas' leader changes over the run.
func flapsPerHour(s *sim, end time.Time) (float64, bool) {
	secs := uint64(end.Sub(epoch) / time.Second)
	if secs == 0 {
		return 0, false
	}
	var changes uint64
	for _, rep := range s.reps {
		_, c, ok := rep.m.Leader(routeKey)
		if !ok {
			return 0, false
		}
		changes += c
	}
	perHour := changes * 3600 * 100 / secs / uint64(len(s.reps))
	return float64(perHour) / 100, true
}
