package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"go.minekube.com/gate/pkg/edition/java/lite"
)

// liveSets are the routes and configured backends in force, as the
// event-fed series label them.
func liveSets(routes []lite.RouteInfo, infos []lite.BackendInfo) (map[string]bool, map[backendKey]bool) {
	rs := make(map[string]bool, len(routes))
	for _, r := range routes {
		rs[r.Key] = true
	}
	bs := make(map[backendKey]bool, len(infos))
	for _, bi := range infos {
		configured := bi.Backend
		if bi.Template != "" {
			configured = bi.Template
		}
		bs[backendKey{bi.Route, configured}] = true
	}
	return rs, bs
}

// forget drops the event-fed series of routes and backends no longer in force,
// unless a session on them still runs: without it, every route and backend
// address a discovery source ever published (a container that gets a new
// address at each restart, a tenant renaming hosts) would stay in /metrics
// for the life of the process. A route or backend that comes back starts its
// counters from zero, which rate() reads as a reset. Rejections before
// routing (route "") always stay.
func (m *Metrics) forget(routes map[string]bool, backends map[backendKey]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	busy := map[string]bool{} // routes with a live session
	for k, b := range m.backends {
		if b.sessions.Load() > 0 {
			busy[k.route] = true
			continue
		}
		if !backends[k] {
			delete(m.backends, k)
			labels := prometheus.Labels{labelRoute: k.route, labelBackend: k.backend}
			for _, v := range []*prometheus.MetricVec{m.active.MetricVec, m.started.MetricVec, m.ended.MetricVec,
				m.dials.MetricVec, m.dialTime.MetricVec} {
				v.DeletePartialMatch(labels)
			}
		}
	}
	gone := func(route string) bool { return route != "" && !routes[route] && !busy[route] }
	for r := range m.routes {
		if gone(r) {
			delete(m.routes, r)
			m.status.DeletePartialMatch(prometheus.Labels{labelRoute: r})
			m.bytes.DeletePartialMatch(prometheus.Labels{labelRoute: r})
		}
	}
	for k := range m.rejects {
		if gone(k.route) {
			delete(m.rejects, k)
			m.rejected.DeletePartialMatch(prometheus.Labels{labelRoute: k.route})
		}
	}
}
