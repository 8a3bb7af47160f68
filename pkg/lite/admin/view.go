package admin

import (
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
)

// Route is one route in /api/v1/routes.
type Route struct {
	Key      string   `json:"key"`
	Hosts    []string `json:"hosts"`
	Strategy string   `json:"strategy"`
	Backends []string `json:"backends"`
	Fallback bool     `json:"fallback"`
}

// Backend is one backend of one route in /api/v1/backends.
type Backend struct {
	Route   string `json:"route"`
	Backend string `json:"backend"`
	// Template is the $n template the address was expanded from; for the template
	// row itself Template equals Backend.
	Template string `json:"template,omitempty"`
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
	// template row).
	Reason string `json:"reason,omitempty"`
	// Score is the strategy's own ranking value, where the strategy has one.
	Score    *float64 `json:"score,omitempty"`
	Eligible bool     `json:"eligible"`
	Why      string   `json:"why"`
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
		out = append(out, Route{Key: r.Key, Hosts: r.Hosts, Strategy: r.Strategy, Backends: r.Backends, Fallback: r.Fallback})
	}
	return out
}

func backendsView(in []lite.BackendInfo) []Backend {
	out := make([]Backend, 0, len(in))
	for _, bi := range in {
		b := Backend{Route: bi.Route, Backend: bi.Backend, Template: bi.Template, State: "unknown",
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
		if bi.Template == bi.Backend && bi.Template != "" {
			b.State = "template"
		}
		out = append(out, b)
	}
	return out
}
