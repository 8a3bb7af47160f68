package admin

import (
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// Route is one route in /api/v1/routes.
type Route struct {
	Key string `json:"key"`
	// Origin names where the route came from: "<file>:<line>",
	// "kubernetes <namespace>/<service>" or "docker <container>".
	Origin   string   `json:"origin"`
	Hosts    []string `json:"hosts"`
	Strategy string   `json:"strategy"`
	Backends []string `json:"backends"`
	Fallback bool     `json:"fallback"`
	// ScoreUnit says what the backends' scores count; absent when the
	// strategy does not score.
	ScoreUnit string `json:"scoreUnit,omitempty"`
	// Decision is a lowest-latency route's decision state.
	Decision *Decision `json:"decision,omitempty"`
	// Spills counts login orders that found every healthy backend busy (a
	// login storm) and widened to the busy ones.
	Spills uint64 `json:"spills,omitempty"`
}

// Decision is why a lowest-latency route prefers its current best.
type Decision struct {
	Best          string `json:"best"`
	Challenger    string `json:"challenger,omitempty"`
	Confirmations int    `json:"confirmations"`
	Needed        int    `json:"needed"`
	// LastSwitch is when a challenger last took over; absent before.
	LastSwitch *time.Time `json:"lastSwitch,omitempty"`
	// Hold is why it does not switch: incumbent-best, insufficient-advantage,
	// candidate-unstable, cooldown or all-probes-failed.
	Hold string `json:"hold"`
	// Changes counts the changes of the best backend by reason.
	Changes map[string]uint64 `json:"changes"`
}

// Balance is a load-reading strategy's view of one backend.
type Balance struct {
	// Load is the estimated fill (1 is full); LoadSource is report,
	// local-estimate or neutral.
	Load       float64 `json:"load"`
	LoadSource string  `json:"loadSource"`
	// Capacity and where it came from: configured, reported or nominal.
	Capacity       int64  `json:"capacity"`
	CapacitySource string `json:"capacitySource"`
	// Replicas is the replica estimate the load charges placements with.
	Replicas    int64 `json:"replicas"`
	Saturated   bool  `json:"saturated"`
	Full        bool  `json:"full"`
	Draining    bool  `json:"draining"`
	StaleReport bool  `json:"staleReport"`
	// RampPercent is the slow-start weight, 100 when settled.
	RampPercent int `json:"rampPercent"`
}

// Backend is one backend of one route in /api/v1/backends.
type Backend struct {
	Route   string `json:"route"`
	Backend string `json:"backend"`
	// Template is the $n template the address was expanded from; for the template
	// row itself Template equals Backend.
	Template string `json:"template,omitempty"`
	// Origin names where the backend came from (its route's origin, or its
	// container).
	Origin string `json:"origin,omitempty"`
	// State is healthy, unknown, ejected or down ("unknown" until the proxy has
	// any state for it).
	State  string `json:"state"`
	Active int64  `json:"active"`
	// LatencyMs is the smoothed latency estimate; absent until measured.
	LatencyMs *float64 `json:"latencyMs,omitempty"`
	// Load is the players the backend reported in its last status response.
	Load *Load `json:"load,omitempty"`
	// LastReport is when the last status response arrived; Version is the
	// version name it carried.
	LastReport *time.Time `json:"lastReport,omitempty"`
	Version    string     `json:"version,omitempty"`
	// EjectedUntil is when the current passive ejection ends.
	EjectedUntil *time.Time `json:"ejectedUntil,omitempty"`
	// Reason is the strategy manager's health verdict behind Eligible: new,
	// healthy, unmeasured, ejected, awaiting-probe or down (absent for a
	// template row); removed for a backend no route lists any more that still
	// holds players.
	Reason string `json:"reason,omitempty"`
	// Score is the strategy's own ranking value, where the strategy has one
	// (the route's scoreUnit says what it counts; lower is better).
	Score *float64 `json:"score,omitempty"`
	// FailuresPermille is the failed share of recent probes and attempts;
	// PenaltyMs what it adds to latency scores.
	FailuresPermille int64    `json:"failuresPermille,omitempty"`
	PenaltyMs        float64  `json:"penaltyMs,omitempty"`
	Balance          *Balance `json:"balance,omitempty"`
	Eligible         bool     `json:"eligible"`
	Why              string   `json:"why"`
}

// Load is a backend's self-reported player count.
type Load struct {
	Online int `json:"online"`
	Max    int `json:"max"`
}

// Source is what the API shows; *lite.Lite implements it.
type Source interface {
	Routes() []lite.RouteInfo
	Backends() []lite.BackendInfo
	Ready() bool
}

func routesView(in []lite.RouteInfo) []Route {
	out := make([]Route, 0, len(in))
	for _, r := range in {
		out = append(out, Route{Key: r.Key, Origin: r.Origin, Hosts: r.Hosts, Strategy: r.Strategy, Backends: r.Backends, Fallback: r.Fallback,
			ScoreUnit: r.ScoreUnit, Decision: decisionView(r.Decision), Spills: r.Spills})
	}
	return out
}

func backendsView(in []lite.BackendInfo) []Backend {
	out := make([]Backend, 0, len(in))
	for _, bi := range in {
		b := Backend{Route: bi.Route, Backend: bi.Backend, Template: bi.Template, Origin: bi.Origin, State: "unknown",
			Reason: bi.Reason, Eligible: bi.Eligible, Why: bi.Why}
		if bi.Known {
			st := bi.State
			b.State, b.Active = st.Health, st.Active
			if st.HasLatency {
				ms := float64(st.Latency.Microseconds()) / 1000
				b.LatencyMs = &ms
			}
			if st.Report != nil {
				at := st.ReportAt.UTC()
				b.LastReport, b.Version = &at, st.Report.Version
				if st.Report.HasPlayers {
					b.Load = &Load{Online: st.Report.Online, Max: st.Report.Max}
				}
			}
			if !st.EjectedUntil.IsZero() {
				u := st.EjectedUntil.UTC()
				b.EjectedUntil = &u
			}
		}
		if bi.HasScore {
			score := bi.Score
			b.Score = &score
		}
		b.FailuresPermille, b.PenaltyMs = bi.Failures, float64(bi.Penalty.Microseconds())/1000
		b.Balance = balanceView(bi.Load)
		if bi.Template == bi.Backend && bi.Template != "" {
			b.State = "template"
		}
		out = append(out, b)
	}
	return out
}

func decisionView(d *strategy.LatencyDecision) *Decision {
	if d == nil {
		return nil
	}
	out := &Decision{Best: d.Best, Challenger: d.Challenger, Confirmations: d.Confirmations, Needed: d.Needed,
		Hold: string(d.Hold), Changes: map[string]uint64{}}
	if !d.LastSwitch.IsZero() {
		at := d.LastSwitch.UTC()
		out.LastSwitch = &at
	}
	for _, c := range strategy.Changes() {
		out.Changes[c.String()] = d.Changes[c]
	}
	return out
}

func balanceView(lv *strategy.LoadVerdict) *Balance {
	if lv == nil {
		return nil
	}
	return &Balance{Load: lv.Load, LoadSource: lv.Source.String(), Capacity: lv.Capacity, CapacitySource: lv.CapacitySource,
		Replicas: lv.Peers, Saturated: lv.Saturated, Full: lv.Full, Draining: lv.Draining, StaleReport: lv.Stale, RampPercent: lv.Ramp}
}
