package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// Source is what the scrape-time collector reads; *lite.Lite implements it.
type Source interface {
	Routes() []lite.RouteInfo
	Backends() []lite.BackendInfo
	Ready() bool
}

var healthStates = [...]string{strategy.HealthHealthy, strategy.HealthUnknown, strategy.HealthEjected, strategy.HealthDown}

var (
	descReady = prometheus.NewDesc(Namespace+"_ready",
		"1 while the player listener is bound and a config is loaded.", nil, nil)
	descHealth = prometheus.NewDesc(Namespace+"_backend_health",
		"1 for the backend's current health state (healthy, unknown, ejected, down), 0 for the others.",
		[]string{labelRoute, labelBackend, labelState}, nil)
	descEligible  = backendDesc("_backend_eligible", "1 when the route's strategy orders the backend among the usable ones (demoted backends are 0).")
	descEjections = backendDesc("_backend_ejections_total", "Passive ejections of the backend (consecutive dial failures) seen by the scrapes of this process.")
	descLatency   = backendDesc("_backend_latency_seconds", "The backend's smoothed latency estimate (absent until measured).")
	descOnline    = backendDesc("_backend_players_online", "players.online from the backend's last status response (absent without one).")
	descMax       = backendDesc("_backend_players_max", "players.max from the backend's last status response (absent without one).")
	descScore     = backendDesc("_backend_score", "The route's strategy's score for the backend, lower is better (absent for strategies that do not score).")
	descLeader    = prometheus.NewDesc(Namespace+"_leader_changes_total",
		"Changes of a lowest-latency route's best backend, by reason (confirmed, incumbent-gone), since the route's strategy started.",
		[]string{labelRoute, labelReason}, nil)
	descSpills = prometheus.NewDesc(Namespace+"_login_spills_total",
		"Login orders of the route that found every healthy backend's attempts in flight at its limit (a login storm) and widened to the busy backends.",
		[]string{labelRoute}, nil)
	descExpanded = backendDesc("_template_backends", "Addresses a $n backend template currently expands to that the proxy tracks.")
)

// backendDesc describes a series of one route's backend.
func backendDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(Namespace+name, help, []string{labelRoute, labelBackend}, nil)
}

// backendCollector reads the backends at scrape time: the connection path never
// does any of this work.
type backendCollector struct {
	src Source
	// forget drops the event-fed series of what is no longer in force.
	forget func(routes map[string]bool, backends map[backendKey]bool)

	// Ejections are derived from the ejection deadline: each new deadline is one
	// more ejection. A backend ejected twice between two scrapes counts once
	// (ejections last at least ~27s, longer than usual scrape intervals).
	mu        sync.Mutex
	ejections map[string]ejectionCount
}

type ejectionCount struct {
	until int64 // EjectedUntil last seen, unix ns
	n     uint64
}

func newBackendCollector(src Source, forget func(map[string]bool, map[backendKey]bool)) *backendCollector {
	return &backendCollector{src: src, forget: forget, ejections: map[string]ejectionCount{}}
}

func (c *backendCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descReady, descHealth, descEligible, descEjections,
		descLatency, descOnline, descMax, descScore, descLeader, descExpanded, descSpills} {
		ch <- d
	}
}

func (c *backendCollector) Collect(ch chan<- prometheus.Metric) {
	ready := 0.0
	if c.src.Ready() {
		ready = 1
	}
	ch <- prometheus.MustNewConstMetric(descReady, prometheus.GaugeValue, ready)
	infos := c.src.Backends()
	ejections := c.countEjections(infos)
	expanded := map[backendKey]int{}
	done := map[backendKey]bool{} // a backend listed twice in a route is one series
	for _, bi := range infos {
		k := backendKey{bi.Route, bi.Backend}
		switch {
		case done[k]:
		case bi.Template == "":
			done[k] = true
			collectBackend(ch, bi, ejections[bi.Backend])
		case bi.Backend == bi.Template:
			expanded[backendKey{bi.Route, bi.Template}] += 0
		default:
			done[k] = true
			expanded[backendKey{bi.Route, bi.Template}]++
		}
	}
	for k, n := range expanded {
		ch <- prometheus.MustNewConstMetric(descExpanded, prometheus.GaugeValue, float64(n), k.route, k.backend)
	}
	routes := c.src.Routes()
	c.forget(liveSets(routes, infos))
	for _, r := range routes {
		ch <- prometheus.MustNewConstMetric(descSpills, prometheus.CounterValue, float64(r.Spills), r.Key)
		if d := r.Decision; d != nil {
			for _, ch2 := range strategy.Changes() {
				ch <- prometheus.MustNewConstMetric(descLeader, prometheus.CounterValue, float64(d.Changes[ch2]), r.Key, ch2.String())
			}
		}
	}
}

// collectBackend emits one static backend's series. Expanded addresses are never
// labels: a client chooses them.
func collectBackend(ch chan<- prometheus.Metric, bi lite.BackendInfo, ejections uint64) {
	labels := []string{bi.Route, bi.Backend}
	health := bi.State.Health
	if !bi.Known {
		health = strategy.HealthUnknown
	}
	for _, s := range healthStates {
		v := 0.0
		if s == health {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(descHealth, prometheus.GaugeValue, v, bi.Route, bi.Backend, s)
	}
	eligible := 0.0
	if bi.Eligible {
		eligible = 1
	}
	ch <- prometheus.MustNewConstMetric(descEligible, prometheus.GaugeValue, eligible, labels...)
	ch <- prometheus.MustNewConstMetric(descEjections, prometheus.CounterValue, float64(ejections), labels...)
	if bi.State.HasLatency {
		ch <- prometheus.MustNewConstMetric(descLatency, prometheus.GaugeValue, bi.State.Latency.Seconds(), labels...)
	}
	if bi.HasScore {
		ch <- prometheus.MustNewConstMetric(descScore, prometheus.GaugeValue, bi.Score, labels...)
	}
	if r := bi.State.Report; r != nil && r.HasPlayers {
		ch <- prometheus.MustNewConstMetric(descOnline, prometheus.GaugeValue, float64(r.Online), labels...)
		ch <- prometheus.MustNewConstMetric(descMax, prometheus.GaugeValue, float64(r.Max), labels...)
	}
}

// countEjections updates the ejection counts of the static backends and forgets
// the ones no longer configured.
func (c *backendCollector) countEjections(infos []lite.BackendInfo) map[string]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]uint64{}
	for _, bi := range infos {
		if bi.Template != "" {
			continue
		}
		e := c.ejections[bi.Backend]
		if _, done := seen[bi.Backend]; !done && bi.Known && !bi.State.EjectedUntil.IsZero() {
			if until := bi.State.EjectedUntil.UnixNano(); until != e.until {
				e.until, e.n = until, e.n+1
			}
		}
		c.ejections[bi.Backend] = e
		seen[bi.Backend] = e.n
	}
	for addr := range c.ejections {
		if _, ok := seen[addr]; !ok {
			delete(c.ejections, addr)
		}
	}
	return seen
}
