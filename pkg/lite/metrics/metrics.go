package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/relay"
)

// Namespace prefixes every metric name.
const Namespace = "gate_lite"

// Label names.
const (
	labelRoute     = "route"
	labelBackend   = "backend"
	labelReason    = "reason"
	labelResult    = "result"
	labelSource    = "source"
	labelDirection = "direction"
	labelState     = "state"
)

// DialBuckets are the dial duration histogram's buckets in seconds: a backend
// next door connects in well under a millisecond, one across a continent in
// ~100ms, and the default connectionTimeout is 5s.
var DialBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

// Options configure New.
type Options struct {
	// Now is the clock of the last-reload timestamp. Nil means time.Now.
	Now func() time.Time
	// NoProcess leaves out the Go runtime and process collectors (tests compare
	// exact output without them).
	NoProcess bool
}

// Metrics holds the proxy's metrics in a registry of its own, so two instances in
// one process (or one test) never share series.
type Metrics struct {
	reg *prometheus.Registry
	now func() time.Time

	accepted   prometheus.Counter
	rejected   *prometheus.CounterVec // reason, route
	active     *prometheus.GaugeVec   // route, backend
	started    *prometheus.CounterVec // route, backend
	ended      *prometheus.CounterVec // route, backend, reason
	dials      *prometheus.CounterVec // route, backend, result
	dialTime   *prometheus.HistogramVec
	status     *prometheus.CounterVec // route, source
	bytes      *prometheus.CounterVec // route, direction
	reloads    *prometheus.CounterVec // result
	lastReload prometheus.Gauge

	mu       sync.RWMutex
	routes   map[string]*routeSeries
	backends map[backendKey]*backendSeries
	rejects  map[rejectKey]prometheus.Counter
}

// New creates the metrics and registers them in a new registry.
func New(o Options) *Metrics {
	if o.Now == nil {
		o.Now = time.Now
	}
	rb := []string{labelRoute, labelBackend}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		now: o.Now,
		accepted: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
			Name: "connections_accepted_total", Help: "TCP connections accepted on the player listener."}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
			Name: "connections_rejected_total", Help: "Connections closed before reaching a backend, by reason (route is empty before routing)."},
			[]string{labelReason, labelRoute}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace,
			Name: "sessions_active", Help: "Player sessions currently relayed, by route and configured backend."}, rb),
		started: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
			Name: "sessions_started_total", Help: "Player sessions handed to a backend."}, rb),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
			Name: "sessions_ended_total", Help: "Player sessions ended, by which side ended them."},
			[]string{labelRoute, labelBackend, labelReason}),
		dials: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
			Name: "backend_dials_total", Help: "Dial attempts to backends for players, by outcome (ok, refused, timeout, canceled, error)."},
			[]string{labelRoute, labelBackend, labelResult}),
		dialTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace,
			Name: "backend_dial_duration_seconds", Help: "Connect time of successful dials to backends.", Buckets: DialBuckets}, rb),
		status: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
			Name: "status_requests_total", Help: "Status (server list) requests answered, by source (cache, backend, fallback, last-known-good, asleep)."},
			[]string{labelRoute, labelSource}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
			Name: "relayed_bytes_total", Help: "Bytes relayed by ended sessions, by direction (up: player to backend)."},
			[]string{labelRoute, labelDirection}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
			Name: "config_reloads_total", Help: "Config reloads by result (ok, error)."}, []string{labelResult}),
		lastReload: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace,
			Name: "config_last_reload_success_timestamp_seconds", Help: "When the config in force was loaded (start or last successful reload)."}),
		routes:   map[string]*routeSeries{},
		backends: map[backendKey]*backendSeries{},
		rejects:  map[rejectKey]prometheus.Counter{},
	}
	m.reg.MustRegister(m.accepted, m.rejected, m.active, m.started, m.ended, m.dials, m.dialTime,
		m.status, m.bytes, m.reloads, m.lastReload)
	// Both results exist from the start so that rate() and alerts see a zero.
	m.reloads.WithLabelValues("ok")
	m.reloads.WithLabelValues("error")
	m.lastReload.Set(float64(o.Now().UnixNano()) / 1e9)
	if !o.NoProcess {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registry is where the metrics live; register more collectors here.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveReload counts one reload attempt: err nil is a successful reload.
func (m *Metrics) ObserveReload(err error) {
	if err != nil {
		m.reloads.WithLabelValues("error").Inc()
		return
	}
	m.reloads.WithLabelValues("ok").Inc()
	m.lastReload.Set(float64(m.now().UnixNano()) / 1e9)
}

// WatchBackends registers the scrape-time view of src's backends.
func (m *Metrics) WatchBackends(src Source) {
	m.reg.MustRegister(newBackendCollector(src, m.forget))
}

// WatchRelay registers scrape-time gauges read from stats (*lite.Lite's RelayStats):
// the directions served by the relay's pollers, those of them whose bytes wait for
// their destination, and the open splice pipes.
func (m *Metrics) WatchRelay(stats func() relay.Stats) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "relay_parked_directions",
			Help: "Session directions served by the relay's pollers, holding no goroutine."},
			func() float64 { return float64(stats().Parked) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "relay_waiting_directions",
			Help: "Parked session directions whose bytes wait for a destination that takes no more."},
			func() float64 { return float64(stats().Waiting) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "relay_splice_pipes",
			Help: "Kernel pipes the relay holds for splicing (2 descriptors each), lent or idle in its pool."},
			func() float64 { return float64(stats().PipesOpen) }),
	)
}

// WatchHeld registers a scrape-time gauge of the logins held right now while their
// route's target wakes (*lite.Lite's HeldLogins): each holds a connection slot and a
// descriptor, so a stuck wake shows here before the caps are reached.
func (m *Metrics) WatchHeld(held func() int64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "held_logins",
		Help: "Logins held while their route's wake target starts."},
		func() float64 { return float64(held()) }))
}

var _ lite.Observer = (*Metrics)(nil)
