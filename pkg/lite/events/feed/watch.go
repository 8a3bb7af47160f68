package feed

import (
	"context"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/strategy"
	"go.minekube.com/gate/pkg/lite/wake"
)

// DefaultEvery is how often Watch reads health and wake phases.
const DefaultEvery = time.Second

// Source is what Watch reads; *lite.Lite implements Backends, and its Wake
// Coordinator's States the wake phases.
type Source struct {
	Backends func() []lite.BackendInfo
	Wake     func() []wake.State // nil: no wake events
}

type healthKey struct{ route, backend string }

// Routes publishes route-added and route-removed for the difference between
// routes (the routes in force after an apply) and the previous call's. The first
// call reports every route as added.
func (f *Feed) Routes(routes []lite.RouteInfo) {
	f.routesMu.Lock()
	defer f.routesMu.Unlock()
	next := make(map[string]lite.RouteInfo, len(routes))
	for _, r := range routes {
		next[r.Key] = r
	}
	for _, r := range routes {
		if _, ok := f.routes[r.Key]; !ok {
			f.bus.Publish(routeEvent(events.RouteAdded, r))
		}
	}
	for k, r := range f.routes {
		if _, ok := next[k]; !ok {
			f.bus.Publish(routeEvent(events.RouteRemoved, r))
		}
	}
	f.routes = next
}

func routeEvent(t events.Type, r lite.RouteInfo) events.Event {
	e := events.Event{Type: t, Route: r.Key, Hosts: r.Hosts}
	if len(r.Backends) > 0 {
		e.Backend = r.Backends[0]
	}
	return e
}

// Watch reads src every interval (DefaultEvery when 0) until ctx ends, publishing
// backend-up and backend-down when a backend's health crosses between usable
// (healthy, unknown) and not (ejected, down), and wake when a target's phase
// changes. The first reading is the baseline: it publishes nothing.
func (f *Feed) Watch(ctx context.Context, src Source, every time.Duration) {
	if every <= 0 {
		every = DefaultEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	f.read(src, false)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f.read(src, true)
		}
	}
}

// read takes one reading and, with publish, reports what changed since the last.
func (f *Feed) read(src Source, publish bool) {
	health := map[healthKey]string{}
	for _, b := range src.Backends() {
		if !b.Known {
			continue
		}
		k := healthKey{b.Route, b.Backend}
		health[k] = b.State.Health
		if prev, ok := f.health[k]; publish && ok && usable(prev) != usable(b.State.Health) {
			t := events.BackendDown
			if usable(b.State.Health) {
				t = events.BackendUp
			}
			f.bus.Publish(events.Event{Type: t, Route: b.Route, Backend: b.Backend, From: prev, To: b.State.Health})
		}
	}
	f.health = health
	if src.Wake == nil {
		return
	}
	phases := map[string]string{}
	for _, s := range src.Wake() {
		phases[s.Key] = s.Phase
		if prev, ok := f.phases[s.Key]; publish && ok && prev != s.Phase {
			f.bus.Publish(events.Event{Type: events.Wake, Target: s.Key, From: prev, To: s.Phase, Err: s.Error})
		}
	}
	f.phases = phases
}

func usable(health string) bool {
	return health == strategy.HealthHealthy || health == strategy.HealthUnknown
}
