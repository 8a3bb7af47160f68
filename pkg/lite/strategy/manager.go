package strategy

import (
	"cmp"
	crand "crypto/rand"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
)

// Manager is the StrategyManager of one Lite instance: it owns the routes'
// strategy instances and the state of every backend they use. All methods
// are safe for concurrent use.
type Manager struct {
	now       func() time.Time
	log       logr.Logger
	prober    Prober
	factories map[Name]Factory
	seeds     *lockedRand // derives each strategy instance's seed
	jitter    *lockedRand // ejection and probe-interval jitter
	lat       *latencyStore
	kick      chan struct{} // wakes the probe loop; buffered, never blocks
	running   atomic.Bool
	probing   atomic.Bool // ejected backends wait for a probe before players
	scratch   sync.Pool
	spill     spills     // login orders widened past the usable backends (tier.go)
	reload    sync.Mutex // serialises SetRoutes
	pick      sync.Mutex // login orders are decided one at a time (order.go); after mu, never before

	drained atomic.Pointer[map[string]bool] // left out of login orders (drain.go)

	// answered is when the youngest attempt any backend answered was reserved (unix
	// ns): how far the fleet has got, which a stall is measured against (tier.go).
	answered atomic.Int64
	stalls   stallWatch   // logins waiting on a first answer (stall.go)
	watching atomic.Int64 // how many

	mu        sync.RWMutex
	routes    map[string]*route
	backends  map[string]*backend
	targets   []*backend // backends in address order, for probes; nil when backends changed
	lastSweep time.Time
	boundAt   int // len(backends) at which boundUnlistedLocked next looks (bound.go)
}

// route is one installed Route with its strategy instance.
type route struct {
	key      string
	name     Name
	strat    Strategy
	inputs   Inputs
	health   HealthCheck   // with defaults when Enabled
	p2c      P2CConfig     // with defaults
	panicked atomic.Bool   // logged once per change
	spills   atomic.Uint64 // login orders widened past the usable backends
}

// configurable is implemented by strategies with per-route settings; the
// manager hands them the route's settings on every SetRoutes, so a kept
// instance follows a reload.
type configurable interface {
	configure(P2CConfig)
}

// NewManager creates a manager with no routes; Order orders every route as
// Default does until SetRoutes installs them.
func NewManager(o Options) *Manager {
	seed := o.Seed
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:]) // never fails on supported platforms
		seed = binary.LittleEndian.Uint64(b[:])
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	factories := builtins()
	for name, f := range o.Strategies {
		if f != nil {
			factories[name] = f
		}
	}
	master := newLockedRand(seed)
	m := &Manager{
		now:       now,
		log:       o.Log,
		prober:    o.Prober,
		factories: factories,
		seeds:     newLockedRand(master.Uint64()),
		jitter:    newLockedRand(master.Uint64()),
		lat:       newLatencyStore(now),
		kick:      make(chan struct{}, 1),
		routes:    map[string]*route{},
		backends:  map[string]*backend{},
	}
	m.scratch.New = func() any { return new(scratch) }
	return m
}

// SetRoutes installs the route set, on start and on every reload. A route
// whose key and strategy remain keeps its strategy instance (round-robin
// cursor, lowest-latency incumbent). Backends that some route still lists
// keep their state; the rest are dropped, except those with players still
// on them, which stay until they are idle. A backend new to a route starts
// unknown, which is usable at once.
func (m *Manager) SetRoutes(routes []Route) {
	// Reloads are serialised so that strategy factories (which may be a
	// caller's code) run outside m.mu yet see a stable previous route set.
	m.reload.Lock()
	defer m.reload.Unlock()
	m.mu.RLock()
	prev := m.routes
	m.mu.RUnlock()
	next := make(map[string]*route, len(routes))
	var kept []Route
	for _, rt := range routes {
		if _, dup := next[rt.Key]; dup {
			m.log.Info("duplicate route key ignored", "route", rt.Key)
			continue
		}
		next[rt.Key] = m.buildRoute(rt, prev[rt.Key])
		kept = append(kept, rt)
	}
	m.mu.Lock()
	reload := len(prev) > 0
	m.routes = next
	m.pinBackends(kept, next, reload)
	m.mu.Unlock()
	m.wake()
}

// buildRoute keeps old's strategy instance when the strategy is unchanged.
func (m *Manager) buildRoute(rt Route, old *route) *route {
	name := cmp.Or(rt.Strategy, Default)
	f, ok := m.factories[name]
	if !ok {
		m.log.Error(ErrUnknownName, "route falls back to "+string(Default), "route", rt.Key, "strategy", string(name))
		name, f = Default, m.factories[Default]
	}
	r := &route{key: rt.Key, name: name, p2c: rt.P2C.WithDefaults()}
	if rt.Health.Enabled {
		r.health = rt.Health.WithDefaults()
	}
	if old != nil && old.name == name {
		r.strat = old.strat
		r.panicked.Store(old.panicked.Load())
		r.spills.Store(old.spills.Load())
	} else {
		r.strat = f(Env{Seed: m.seeds.Uint64(), Now: m.now})
	}
	r.inputs = r.strat.Inputs()
	if c, ok := r.strat.(configurable); ok {
		c.configure(r.p2c)
	}
	return r
}

// pinBackends recounts which backends the routes list, gives each its
// per-backend settings (health checks, capacity, drain pattern, report
// probes; the first route that sets one wins) and drops the idle rest. On a
// reload, a backend new to the routes starts its slow start. m.mu must be
// held.
func (m *Manager) pinBackends(routes []Route, next map[string]*route, reload bool) {
	prevPins := make(map[string]int, len(m.backends))
	for addr, b := range m.backends {
		prevPins[addr] = b.pins
		b.pins = 0
		b.wantLatency.Store(false)
	}
	cfg := map[string]*pinned{}
	nowNS := m.now().UnixNano()
	for _, rt := range routes {
		r := next[rt.Key]
		for _, addr := range rt.Backends {
			b := m.backends[addr]
			if b == nil {
				b = newBackend(addr, &m.answered)
				m.backends[addr] = b
				m.targets = nil
			}
			// Only a backend that was out ramps: one listed again while it
			// still holds players never left.
			if reload && prevPins[addr] == 0 && b.pins == 0 && b.idle() {
				b.warmSince.Store(nowNS)
				b.rampCredit.Store(1000)
			}
			b.pins++
			b.lastRoute = rt.Key
			if r.inputs&InputLatency != 0 {
				b.wantLatency.Store(true)
			}
			p := cfg[addr]
			if p == nil {
				p = &pinned{}
				cfg[addr] = p
			}
			p.add(r, rt, addr)
		}
	}
	for addr, b := range m.backends {
		switch {
		case b.pins > 0:
			p := cfg[addr]
			m.setHealthCheck(b, p.hc, p.reportEvery)
			b.setSettings(p.settings)
		case b.idle():
			delete(m.backends, addr)
			m.targets = nil
			m.lat.delete(addr)
			b.latency.Store(nil)
		}
		// An unlisted backend with players keeps its settings until it is
		// idle and expires like a templated one.
	}
}

// pinned gathers one backend's settings from the routes that list it.
type pinned struct {
	hc          HealthCheck
	hcSet       bool
	reportEvery time.Duration
	settings    backendSettings
}

// add folds in route r (configured as rt) listing addr.
func (p *pinned) add(r *route, rt Route, addr string) {
	if !p.hcSet && r.health.Enabled {
		p.hc, p.hcSet = r.health, true
	}
	if r.inputs&(InputLoad|InputLatency) != 0 {
		// Load and latency are only as good as their last sample: every
		// backend is probed each interval, whether players go there or not.
		iv := rt.Health.WithDefaults().Interval
		if p.reportEvery == 0 || iv < p.reportEvery {
			p.reportEvery = iv
		}
	}
	if c := rt.Capacity[addr]; p.settings.capacity == 0 && c > 0 {
		p.settings.capacity = c
	}
	if p.settings.drain == nil && rt.P2C.Drain != nil {
		p.settings.drain = rt.P2C.Drain
	}
}

// setHealthCheck switches b's active checks; turning them off forgets the
// down verdict, since nothing would ever lift it.
func (m *Manager) setHealthCheck(b *backend, hc HealthCheck, reportEvery time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reportEvery != reportEvery {
		b.reportEvery, b.nextReport = reportEvery, time.Time{}
	}
	if b.hc == hc {
		return
	}
	b.hc = hc
	if !hc.Enabled {
		b.down.Store(false)
		b.okRun, b.failRun = 0, 0
	}
	b.nextCheck = time.Time{}
}

// Snapshot describes every known backend, sorted by address.
func (m *Manager) Snapshot() []BackendState {
	m.mu.RLock()
	bs := make([]*backend, 0, len(m.backends))
	for _, b := range m.backends {
		bs = append(bs, b)
	}
	m.mu.RUnlock()
	now := m.now()
	nowNS, probing := now.UnixNano(), m.probing.Load()
	out := make([]BackendState, 0, len(bs))
	for _, b := range bs {
		out = append(out, b.state(now, b.reason(nowNS, probing), m.lat))
	}
	slices.SortFunc(out, func(a, b BackendState) int { return strings.Compare(a.Addr, b.Addr) })
	return out
}

// wake nudges the probe loop to recompute its schedule.
func (m *Manager) wake() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}
