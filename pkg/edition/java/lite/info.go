package lite

import (
	"fmt"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// RouteInfo describes one route of the config in force, for the admin API.
type RouteInfo struct {
	// Key is the route's identity (config.RouteKey of its hosts), as in Event.Route.
	Key string
	// Origin names where the route came from: "<file>:<line>",
	// "kubernetes <namespace>/<service>", "docker <container>".
	Origin   string
	Hosts    []string
	Strategy string
	// Backends are as configured: templates keep their $n.
	Backends []string
	// Fallback says whether the route answers pings when every backend is down.
	Fallback bool
	// ScoreUnit says what the backends' scores count ("" when the strategy
	// does not score).
	ScoreUnit string
	// Decision is a lowest-latency route's decision state; nil otherwise.
	Decision *strategy.LatencyDecision
	// Spills counts the route's login orders that found every healthy backend
	// busy (a login storm) and widened to the busy ones.
	Spills uint64
}

// BackendInfo is one backend of one route with its live state and whether new
// players can land on it. A backend listed by two routes appears once per route
// (the state is shared, eligibility is per route).
type BackendInfo struct {
	Route string
	// Backend is the address as configured, or for an address expanded from a
	// template, the expanded address (Template then names the template).
	Backend  string
	Template string
	// Origin names where the backend came from (its route's origin, or the
	// container behind it in a route several containers share).
	Origin string
	// Known is false while the strategy manager has no state for the backend yet
	// (a new backend before its first player, or a template itself).
	Known bool
	State strategy.BackendState
	// Reason is the manager's health verdict; empty for a template row.
	Reason string
	// Eligible says whether the route's strategy orders this backend among the
	// usable ones; an ineligible backend is demoted to the end of the try order,
	// never dropped.
	Eligible bool
	// Why explains Eligible in words, for `gate lite status`.
	Why string
	// Score is the strategy's ranking value for the backend, valid when HasScore
	// (RouteInfo.ScoreUnit says what it counts); lower is better.
	Score    float64
	HasScore bool
	// Failures is the failed share (permille) of recent probes and attempts;
	// Penalty is what that adds to latency scores.
	Failures int64
	Penalty  time.Duration
	// Load is the estimate of a strategy that reads load; nil otherwise.
	Load *strategy.LoadVerdict
}

// Routes describes the routes in force, in config order.
func (l *Lite) Routes() []RouteInfo {
	snap := l.snap.Load()
	out := make([]RouteInfo, 0, len(snap.routes))
	for _, r := range snap.routes {
		ri := RouteInfo{
			Key:       r.key,
			Origin:    r.cfg.Origin,
			Hosts:     append([]string(nil), r.cfg.Host...),
			Strategy:  string(r.cfg.Strategy),
			Backends:  append([]string(nil), r.cfg.Backend...),
			Fallback:  r.fallback != nil,
			ScoreUnit: strategy.ScoreUnit(r.cfg.Strategy),
			Spills:    l.mgr.RouteSpills(r.key),
		}
		if d, ok := l.mgr.Decision(r.key); ok {
			ri.Decision = &d
		}
		out = append(out, ri)
	}
	return out
}

// Backends describes every backend of every route in config order: the static
// ones, each template, and under a template the addresses players' hosts
// expanded it to that the strategy manager still tracks; then the backends a
// reload removed that still hold players (strategy.Manager.Leaving). Eligibility is the
// manager's own verdict (Manager.Explain), on its clock; this only renders it.
func (l *Lite) Backends() []BackendInfo {
	snap := l.snap.Load()
	static := map[string]bool{}
	for _, r := range snap.routes {
		for _, b := range r.static {
			static[b] = true
		}
	}
	var expanded []string // sorted, as Snapshot is
	for _, s := range l.mgr.Snapshot() {
		if !static[s.Addr] {
			expanded = append(expanded, s.Addr)
		}
	}
	var out []BackendInfo
	for _, r := range snap.routes {
		out = append(out, l.routeBackends(r, expanded)...)
	}
	for _, s := range l.mgr.Leaving() { // removed, with players still on them
		out = append(out, BackendInfo{Route: s.LastRoute, Backend: s.Addr, Known: true, State: s, Reason: "removed",
			Why: fmt.Sprintf("removed from the config: takes no new players, keeps its %d until they leave", s.Active)})
	}
	return out
}

// routeBackends builds one route's rows. The static backends are explained
// together, as a connection to the route sees them. Each expanded address is
// explained on its own: which addresses one player's host expands to together
// is not recorded, and for the usual route of one templated backend a
// connection sees exactly that one address.
func (l *Lite) routeBackends(r *compiledRoute, expanded []string) []BackendInfo {
	verdicts := l.mgr.Explain(r.key, r.static, strategy.IntentLogin)
	var out []BackendInfo
	for i, b := range r.cfg.Backend {
		origin := r.cfg.Origin
		if i < len(r.cfg.BackendOrigin) && r.cfg.BackendOrigin[i] != "" {
			origin = r.cfg.BackendOrigin[i]
		}
		if route.MaxParam(b) == 0 {
			out = append(out, render(r.key, "", verdicts[0]))
			out[len(out)-1].Origin = origin
			verdicts = verdicts[1:]
			continue
		}
		out = append(out, BackendInfo{Route: r.key, Backend: b, Template: b, Origin: origin, Eligible: true,
			Why: "template: each player's host fills in $n; state is kept per expanded address"})
		for _, addr := range expanded {
			if route.CouldExpand(b, addr) {
				out = append(out, render(r.key, b, l.mgr.Explain(r.key, []string{addr}, strategy.IntentLogin)[0]))
				out[len(out)-1].Origin = origin
			}
		}
	}
	return out
}

// render turns the manager's verdict into a row.
func render(routeKey, template string, v strategy.Verdict) BackendInfo {
	return BackendInfo{Route: routeKey, Backend: v.Addr, Template: template, Known: v.Known, State: v.State,
		Reason: v.ReasonName(), Eligible: v.Eligible(), Why: v.Why(), Score: v.Score, HasScore: v.HasScore,
		Failures: v.Failures, Penalty: v.Penalty, Load: v.Load}
}
