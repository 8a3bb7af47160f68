package discovery

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// MergerOptions configure a Merger.
type MergerOptions struct {
	// Apply puts a merged config in force, all of it or none of it (the
	// proxy's reload). Required.
	Apply func(*config.Config) error
	// Log receives source transitions, rejected routes and host conflicts.
	Log logr.Logger
	// Now is the clock of staleness times. nil uses time.Now.
	Now func() time.Time
}

// Merger joins the file's routes with every source's latest set and applies
// the result. A file reload and a source's change take the same path: the
// merged config is applied whole or not at all, and a change that is refused
// leaves the routes in force as they were.
type Merger struct {
	o MergerOptions

	mu      sync.Mutex // serialises merges and applies
	file    *config.Config
	sources map[string]*sourceState
	// warned remembers the conflicts and rejections already logged, so a
	// source that republishes the same set does not repeat them.
	warned map[string]bool
	// refusedClaims counts refused claims by source, each counted when it
	// is first logged.
	refusedClaims map[string]uint64
}

type sourceState struct {
	routes     []Route   // as published
	decoded    []decoded // routes whose settings parsed
	rejected   []Rejected
	refused    []RefusedClaim
	updated    time.Time // last Replace
	staleSince time.Time // zero while fresh
	cause      error
}

// decoded is a discovered route whose settings parsed.
type decoded struct {
	config.Route
	catchAll bool // placed after every other route
}

// Rejected is a discovered route left out because a setting did not parse.
type Rejected struct {
	Origin string
	Err    string
}

// NewMerger returns a Merger with no file config yet: SetFile must be called
// before sources publish (they may start after it).
func NewMerger(o MergerOptions) *Merger {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Merger{o: o, sources: make(map[string]*sourceState), warned: make(map[string]bool),
		refusedClaims: make(map[string]uint64)}
}

// SetFile applies a new file config with the sources' current routes. It is the
// apply step of a file reload: an error keeps the previous config in force.
func (m *Merger) SetFile(cfg *config.Config) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	prev := m.file
	m.file = cfg
	// A new file may change the route defaults the sources' settings
	// inherit (health check, disconnect text) and the hosts it grants:
	// decode every set again.
	for name, s := range m.sources {
		m.rebuild(name, s)
	}
	if err := m.o.Apply(m.merged()); err != nil {
		m.file = prev
		if prev != nil {
			for name, s := range m.sources {
				m.rebuild(name, s)
			}
		}
		return err
	}
	return nil
}

// Merged returns the config in force as last merged (nil before SetFile).
func (m *Merger) Merged() *config.Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.file == nil {
		return nil
	}
	return m.merged()
}

// Replace implements Sink.
func (m *Merger) Replace(source string, routes []Route) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.state(source)
	now := m.o.Now()
	if !s.staleSince.IsZero() {
		m.o.Log.Info("route source fresh again", "source", source, "staleFor", now.Sub(s.staleSince).Round(time.Millisecond))
		s.staleSince, s.cause = time.Time{}, nil
	}
	s.updated = now
	if reflect.DeepEqual(s.routes, routes) && s.routes != nil {
		return
	}
	prev := *s
	s.routes = cloneRoutes(routes) // the source may reuse its slices
	m.rebuild(source, s)
	if m.file == nil {
		return // applied with the file
	}
	if err := m.o.Apply(m.merged()); err != nil {
		s.routes, s.decoded, s.rejected, s.refused = prev.routes, prev.decoded, prev.rejected, prev.refused
		m.o.Log.Error(err, "discovered routes not applied; the routes in force stay", "source", source)
		return
	}
	backends := 0
	for _, r := range s.decoded {
		backends += len(r.Backend)
	}
	m.o.Log.Info("discovered routes applied", "source", source, "routes", len(s.decoded),
		"backends", backends, "rejected", len(s.rejected), "refusedClaims", len(s.refused))
}

// Stale implements Sink.
func (m *Merger) Stale(source string, cause error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.state(source)
	s.cause = cause
	if !s.staleSince.IsZero() {
		return
	}
	s.staleSince = m.o.Now()
	m.o.Log.Error(cause, "route source stale; its last known routes keep serving",
		"source", source, "since", s.staleSince.UTC().Format(time.RFC3339), "routes", len(s.decoded))
}

func cloneRoutes(routes []Route) []Route {
	out := make([]Route, len(routes))
	for i, r := range routes {
		r.Hosts = slices.Clone(r.Hosts)
		r.Backends = slices.Clone(r.Backends)
		r.Settings = maps.Clone(r.Settings)
		out[i] = r
	}
	return out
}

func (m *Merger) state(source string) *sourceState {
	s, ok := m.sources[source]
	if !ok {
		s = &sourceState{}
		m.sources[source] = s
	}
	return s
}

// rebuild settles s's claims and decodes what is left of its routes.
func (m *Merger) rebuild(source string, s *sourceState) {
	if m.file == nil {
		s.decoded, s.rejected, s.refused = nil, nil, nil
		return
	}
	var routes []Route
	routes, s.refused = resolveClaims(source, m.file.Lite.Discovery.Claims.For(source), s.routes)
	for _, c := range s.refused {
		key := "claim\x00" + source + "\x00" + c.Origin + "\x00" + c.Host + "\x00" + c.Reason
		if m.warned[key] {
			continue
		}
		m.warned[key] = true
		m.refusedClaims[source]++
		m.o.Log.Error(errors.New(c.Reason), "host claim refused; the object's other hosts still apply",
			"source", source, "origin", c.Origin, "host", c.Host)
	}
	s.decoded, s.rejected = m.decode(source, routes)
}

// decode parses each route's settings with the file's parsers. A route whose
// settings do not parse is left out and logged once per distinct problem; the
// rest of the set applies.
func (m *Merger) decode(source string, routes []Route) ([]decoded, []Rejected) {
	var out []decoded
	var rejected []Rejected
	for _, r := range routes {
		addrs := make([]string, len(r.Backends))
		var origins []string
		for i, b := range r.Backends {
			addrs[i] = b.Addr
			if b.Origin != "" && b.Origin != r.Origin {
				if origins == nil {
					origins = make([]string, len(r.Backends))
				}
				origins[i] = b.Origin
			}
		}
		cr, _, err := m.file.Lite.DecodeDiscovered(config.Discovered{Origin: r.Origin, KeyPrefix: r.KeyPrefix,
			Hosts: r.Hosts, Backends: addrs, Settings: r.Settings,
			Namespace: r.Namespace, Container: r.Container})
		if err != nil {
			// A route whose only fault is a `wake` it may not ask for comes back
			// without it (config.ErrNotGranted): served, without waking.
			served := len(cr.Host) > 0
			rejected = append(rejected, Rejected{Origin: r.Origin, Err: err.Error()})
			if key := "reject\x00" + err.Error(); !m.warned[key] {
				m.warned[key] = true
				msg := "discovered route rejected; the source's other routes still apply"
				if served {
					msg = "discovered route's wake refused; the route is served without waking"
				}
				m.o.Log.Error(errors.New(strings.ReplaceAll(err.Error(), "\n", "; ")), msg, "source", source, "origin", r.Origin)
			}
			if !served {
				continue
			}
		}
		cr.BackendOrigin = origins
		cr.Key = source + "/" + config.RouteKey(cr.Host)
		out = append(out, decoded{Route: cr, catchAll: r.Default})
	}
	return out, rejected
}

// merged builds the config to apply: the file's settings, and the routes of
// every source in precedence order, catch-all routes last. m.mu is held.
func (m *Merger) merged() *config.Config {
	cfg := *m.file
	var routes, defaults []config.Route
	for _, name := range cfg.Lite.Discovery.Precedence {
		if name == config.SourceFile {
			routes = append(routes, m.file.Lite.Routes...)
			continue
		}
		s, ok := m.sources[name]
		if !ok {
			continue
		}
		set := slices.Clone(s.decoded)
		slices.SortStableFunc(set, func(a, b decoded) int { return cmp.Compare(a.Origin, b.Origin) })
		for _, r := range set {
			if r.catchAll {
				defaults = append(defaults, r.Route)
			} else {
				routes = append(routes, r.Route)
			}
		}
	}
	routes = append(routes, defaults...)
	m.warnConflicts(routes)
	cfg.Lite.Routes = uniqueKeys(routes)
	return &cfg
}

// uniqueKeys makes every route's identity unique: two routes of one source that
// claim the same hosts (two Services annotated alike) keep separate state.
func uniqueKeys(routes []config.Route) []config.Route {
	seen := make(map[string]bool, len(routes))
	for i := range routes {
		key := routes[i].Key
		if key == "" {
			continue // a file route: its hosts are its identity
		}
		if seen[key] {
			routes[i].Key = key + " (" + routes[i].Origin + ")"
		}
		seen[routes[i].Key] = true
	}
	return routes
}

// warnConflicts logs, once per pair, a host pattern that two routes claim: the
// earlier one serves it, the later one never sees those players.
func (m *Merger) warnConflicts(routes []config.Route) {
	first := make(map[string]string)
	for _, r := range routes {
		for _, h := range r.Host {
			h = strings.ToLower(strings.TrimSuffix(h, "."))
			owner, ok := first[h]
			if !ok {
				first[h] = r.Origin
				continue
			}
			if owner == r.Origin {
				continue
			}
			key := fmt.Sprintf("conflict\x00%s\x00%s\x00%s", h, owner, r.Origin)
			if m.warned[key] {
				continue
			}
			m.warned[key] = true
			m.o.Log.Info("host claimed by two routes; the first in precedence serves it",
				"host", h, "serving", owner, "shadowed", r.Origin)
		}
	}
}

// SourceStatus is one source's state, for the admin API and `gate lite status`.
type SourceStatus struct {
	Name   string
	Routes int
	// Updated is when the source last published its set (zero: never).
	Updated time.Time
	// StaleSince is when the source lost its engine (zero while fresh);
	// Cause says why.
	StaleSince time.Time
	Cause      string
	Rejected   []Rejected
	// RefusedClaims are the hosts the source's objects asked for and did
	// not get, by origin and host.
	RefusedClaims []RefusedClaim
}

// Sources reports every source that has published or gone stale, by name.
func (m *Merger) Sources() []SourceStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]SourceStatus, 0, len(m.sources))
	for name, s := range m.sources {
		st := SourceStatus{Name: name, Routes: len(s.decoded), Updated: s.updated, StaleSince: s.staleSince,
			Rejected: slices.Clone(s.rejected), RefusedClaims: slices.Clone(s.refused)}
		if s.cause != nil {
			st.Cause = s.cause.Error()
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b SourceStatus) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Describe implements prometheus.Collector.
func (m *Merger) Describe(ch chan<- *prometheus.Desc) { ch <- claimsRefusedDesc }

// Collect implements prometheus.Collector: refused host claims by source.
func (m *Merger) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	counts := maps.Clone(m.refusedClaims)
	m.mu.Unlock()
	for source, n := range counts {
		ch <- prometheus.MustNewConstMetric(claimsRefusedDesc, prometheus.CounterValue, float64(n), source)
	}
}
