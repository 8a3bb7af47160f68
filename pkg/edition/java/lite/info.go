package lite

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// RouteInfo describes one route of the config in force, for the admin API.
type RouteInfo struct {
	// Key is the route's identity (its hosts joined with ","), as in Event.Route.
	Key      string
	Hosts    []string
	Strategy string
	// Backends are as configured: templates keep their $n.
	Backends []string
	// Fallback says whether the route answers pings when every backend is down.
	Fallback bool
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
	// Known is false while the strategy manager has no state for the backend yet
	// (a new backend before its first player, or a template itself).
	Known bool
	State strategy.BackendState
	// Eligible says whether the route's strategy orders this backend among the
	// usable ones; an ineligible backend is demoted to the end of the try order,
	// never dropped.
	Eligible bool
	// Why explains Eligible in words, for `gate lite status`.
	Why string
	// Score is the strategy's ranking value for the backend, valid when HasScore.
	// None of the built-in strategies exposes one yet.
	Score    float64
	HasScore bool
}

// Routes describes the routes in force, in config order.
func (l *Lite) Routes() []RouteInfo {
	snap := l.snap.Load()
	out := make([]RouteInfo, 0, len(snap.routes))
	for _, r := range snap.routes {
		out = append(out, RouteInfo{
			Key:      r.key,
			Hosts:    append([]string(nil), r.cfg.Host...),
			Strategy: string(r.cfg.Strategy),
			Backends: append([]string(nil), r.cfg.Backend...),
			Fallback: r.fallback != nil,
		})
	}
	return out
}

// Backends describes every backend of every route in config order: the static
// ones, each template, and under a template the addresses players' hosts
// expanded it to that the strategy manager still tracks.
func (l *Lite) Backends() []BackendInfo {
	snap := l.snap.Load()
	states := map[string]strategy.BackendState{}
	for _, s := range l.mgr.Snapshot() {
		states[s.Addr] = s
	}
	static := map[string]bool{}
	for _, r := range snap.routes {
		for _, b := range r.static {
			static[b] = true
		}
	}
	// The wall clock: the manager's injected clock is not reachable from here, and
	// in production they are the same.
	now := time.Now()
	var out []BackendInfo
	for _, r := range snap.routes {
		out = append(out, routeBackends(r, states, static, now)...)
	}
	return out
}

// routeBackends builds one route's rows. Eligibility mirrors Manager.Order:
// fewer than half of the static backends usable means panic, and then all of
// them are tried.
func routeBackends(r *compiledRoute, states map[string]strategy.BackendState, static map[string]bool, now time.Time) []BackendInfo {
	usable := 0
	for _, b := range r.static {
		if isUsable(states[b]) {
			usable++
		}
	}
	panicMode := usable*2 < len(r.static)
	var out []BackendInfo
	for _, b := range r.cfg.Backend {
		if route.MaxParam(b) == 0 {
			st, known := states[b]
			out = append(out, describe(BackendInfo{Route: r.key, Backend: b, Known: known, State: st}, panicMode, now))
			continue
		}
		out = append(out, BackendInfo{Route: r.key, Backend: b, Template: b, Eligible: true,
			Why: "template: each player's host fills in $n; state is kept per expanded address"})
		var expanded []string
		for addr := range states {
			if !static[addr] && templateMatches(b, addr) {
				expanded = append(expanded, addr)
			}
		}
		slices.Sort(expanded)
		for _, addr := range expanded {
			bi := BackendInfo{Route: r.key, Backend: addr, Template: b, Known: true, State: states[addr]}
			out = append(out, describe(bi, false, now))
		}
	}
	return out
}

// isUsable is the manager's test: ejected and down backends are demoted.
func isUsable(s strategy.BackendState) bool {
	return s.Health != strategy.HealthEjected && s.Health != strategy.HealthDown
}

func describe(bi BackendInfo, panicMode bool, now time.Time) BackendInfo {
	usable := isUsable(bi.State)
	bi.Eligible = usable || panicMode
	switch {
	case !bi.Known:
		bi.Why = "eligible: no state yet (new backend, tried like a healthy one)"
	case bi.State.Health == strategy.HealthHealthy:
		bi.Why = "eligible: healthy"
	case bi.State.Health == strategy.HealthUnknown:
		bi.Why = "eligible: not measured yet, tried like a healthy one"
	case bi.State.Health == strategy.HealthDown:
		bi.Why = "demoted: active health checks failing"
	case !bi.State.EjectedUntil.After(now):
		bi.Why = "demoted: ejection over, waiting for a probe to pass"
	default:
		bi.Why = fmt.Sprintf("demoted: ejected after %d dial failures in a row until %s",
			strategy.EjectFailures, bi.State.EjectedUntil.UTC().Format(time.TimeOnly))
	}
	if !usable && panicMode {
		bi.Why = "eligible (panic): fewer than half of the route's backends are usable, so all are tried; " + bi.Why
	}
	return bi
}

// templateMatches reports whether addr could have been expanded from tpl: the
// literal parts of tpl around each $n match, and what fills each $n consists of
// DNS-label characters only (all a capture may contain). It compiles a pattern
// per call: the admin view is not a hot path.
func templateMatches(tpl, addr string) bool {
	var b strings.Builder
	b.WriteString("^")
	lit := 0
	for i := 0; i < len(tpl); i++ {
		if tpl[i] != '$' || i+1 == len(tpl) || tpl[i+1] < '0' || tpl[i+1] > '9' {
			continue
		}
		b.WriteString(regexp.QuoteMeta(tpl[lit:i]))
		b.WriteString(`[A-Za-z0-9.-]*`)
		for i+1 < len(tpl) && tpl[i+1] >= '0' && tpl[i+1] <= '9' {
			i++
		}
		lit = i + 1
	}
	b.WriteString(regexp.QuoteMeta(tpl[lit:]))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(addr)
}
