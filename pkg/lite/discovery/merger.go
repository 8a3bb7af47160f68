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
	// Now is the clock of staleness times and of Coalesce. nil uses time.Now.
	Now func() time.Time
	// Coalesce is the least time between two applies of sources' changes: a
	// change within it of the last apply waits for its end, and every change
	// that comes meanwhile is applied with it. Each apply recompiles the
	// whole route table, so a source that republishes many times a second
	// (a container crash-looping) costs at most one apply per Coalesce.
	// 0 means DefaultCoalesce; negative applies every change at once.
	Coalesce time.Duration
	// AfterFunc schedules a coalesced apply and returns its stop func; nil
	// uses time.AfterFunc. Tests inject a fake clock's timers.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

// Merger joins the file's routes with every source's latest set and applies
// the result. A file reload and a source's change take the same path: the
// merged config is applied whole or not at all, and a change that is refused
// leaves the routes in force as they were. Sources' changes within Coalesce of
// the last apply are applied together at the window's end, and only the routes
// whose published content changed are parsed again. Close stops it.
type Merger struct {
	o MergerOptions

	mu      sync.Mutex // serialises merges and applies
	file    *config.Config
	sources map[string]*sourceState
	// conflicts are the host conflicts of the last merge, logged when they
	// appeared: a source that republishes the same set does not repeat them.
	conflicts map[string]bool
	// refusedClaims counts refused claims by source, each counted when it
	// is first logged.
	refusedClaims map[string]uint64

	// dirty holds each source changed since the last apply as it was in
	// force then, to put back if the apply is refused.
	dirty     map[string]sourceState
	lastApply time.Time      // of sources' changes; zero before the first
	stopFlush func() bool    // cancels the coalesced apply due; nil when none is
	flushes   sync.WaitGroup // the coalesced applies scheduled, for Close
	closed    bool
}

type sourceState struct {
	routes     []Route   // as published
	decoded    []decoded // routes whose settings parsed
	rejected   []Rejected
	refused    []RefusedClaim
	updated    time.Time // last Replace
	staleSince time.Time // zero while fresh
	cause      error
	// cache holds the decoding of each route of the set by origin, valid
	// for the file it was decoded with.
	cache map[string][]decodeResult
	// warned are the problems of the set's last rebuild (rejections,
	// refused claims), logged when they appeared; noting collects the
	// current rebuild's. Only problems that last are remembered: a tenant
	// cycling through bad values does not grow them.
	warned, noting map[string]bool
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
	if o.Coalesce == 0 {
		o.Coalesce = DefaultCoalesce
	}
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	return &Merger{o: o, sources: make(map[string]*sourceState), conflicts: make(map[string]bool),
		refusedClaims: make(map[string]uint64), dirty: make(map[string]sourceState)}
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
		s.cache = nil
		m.rebuild(name, s)
	}
	if err := m.o.Apply(m.merged()); err != nil {
		m.file = prev
		if prev != nil {
			for name, s := range m.sources {
				s.cache = nil
				m.rebuild(name, s)
				if p, ok := m.dirty[name]; ok { // its change waits for its apply still
					s.decoded, s.rejected, s.refused = p.decoded, p.rejected, p.refused
				}
			}
		}
		return err
	}
	clear(m.dirty) // applied with the file
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

// Replace implements Sink. The set is put in force at once, or, within
// Coalesce of the last apply, at the window's end.
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
	if m.file == nil {
		s.routes = cloneRoutes(routes)
		return // applied with the file
	}
	if _, ok := m.dirty[source]; !ok {
		m.dirty[source] = *s
	}
	s.routes = cloneRoutes(routes) // the source may reuse its slices
	m.schedule()
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

// firstTime notes a problem of s's set and reports whether the set's last
// rebuild did not have it: a problem is logged once while it lasts.
func (s *sourceState) firstTime(key string) bool {
	if s.noting == nil {
		s.noting = make(map[string]bool)
	}
	was := s.warned[key] || s.noting[key]
	s.noting[key] = true
	return !was
}

// rebuild settles s's claims and decodes what is left of its routes.
func (m *Merger) rebuild(source string, s *sourceState) {
	if m.file == nil {
		s.decoded, s.rejected, s.refused, s.warned = nil, nil, nil, nil
		return
	}
	defer func() { s.warned, s.noting = s.noting, nil }()
	routes, oversized := m.fitting(source, s)
	routes, s.refused = resolveClaims(source, m.file.Lite.Discovery.Claims.For(source), routes)
	for _, c := range s.refused {
		if !s.firstTime("claim\x00" + c.Origin + "\x00" + c.Host + "\x00" + c.Reason) {
			continue
		}
		m.refusedClaims[source]++
		m.o.Log.Error(errors.New(c.Reason), "host claim refused; the object's other hosts still apply",
			"source", source, "origin", c.Origin, "host", c.Host)
	}
	s.decoded, s.rejected = m.decode(source, s, routes)
	s.rejected = append(oversized, s.rejected...)
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
		// Sorted by reference: a config.Route is large to move.
		set := make([]*decoded, len(s.decoded))
		for i := range s.decoded {
			set[i] = &s.decoded[i]
		}
		slices.SortStableFunc(set, func(a, b *decoded) int { return cmp.Compare(a.Origin, b.Origin) })
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
	now := make(map[string]bool)
	defer func() { m.conflicts = now }()
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
			key := fmt.Sprintf("%s\x00%s\x00%s", h, owner, r.Origin)
			now[key] = true
			if m.conflicts[key] {
				continue
			}
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
