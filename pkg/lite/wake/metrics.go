package wake

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metricPrefix matches the names of package metrics (its Namespace), so that
// wake series sit beside the proxy's own.
const metricPrefix = "gate_lite_wake_"

// WakeBuckets are the wake duration histogram's buckets in seconds: a
// container starts in about a second, a vanilla server in 5-20s, a modded one
// in minutes.
var WakeBuckets = []float64{.5, 1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300}

var descState = prometheus.NewDesc(metricPrefix+"state",
	"1 for the target's current phase (asleep, waking, awake, idle), 0 for the others.",
	[]string{"target", "phase"}, nil)

var phases = [...]string{PhaseAsleep, PhaseWaking, PhaseAwake, PhaseIdle}

// collector reads the phases at scrape time and counts calls as they happen.
type collector struct {
	c     *Coordinator
	calls *prometheus.CounterVec   // target, action, result
	dur   *prometheus.HistogramVec // target
}

func newCollector(c *Coordinator) *collector {
	return &collector{
		c: c,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricPrefix + "calls_total",
			Help: "Engine and Holders calls for a target, by action (wake, sleep, claim) and result (ok, error; claim: granted, refused, error)."},
			[]string{"target", "action", "result"}),
		dur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricPrefix + "duration_seconds",
			Help: "Time from a wake call to the first backend that answered a status exchange.", Buckets: WakeBuckets},
			[]string{"target"}),
	}
}

// Collector exports the targets' metrics; register it in the proxy's
// registry. gate_lite_wake_state{target,phase} is read at scrape time;
// gate_lite_wake_calls_total{target,action,result} and
// gate_lite_wake_duration_seconds{target} count as calls happen. A key's
// series go when a reload drops it.
func (c *Coordinator) Collector() prometheus.Collector { return c.m }

func (m *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descState
	m.calls.Describe(ch)
	m.dur.Describe(ch)
}

func (m *collector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range m.c.States() {
		for _, p := range phases {
			v := 0.0
			if p == s.Phase {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(descState, prometheus.GaugeValue, v, s.Key, p)
		}
	}
	m.calls.Collect(ch)
	m.dur.Collect(ch)
}

// The target label is target.name: a key may hold a secret, and /metrics
// may be served without a token.
func (m *collector) call(name, action, result string) {
	m.calls.WithLabelValues(name, action, result).Inc()
}

func (m *collector) took(name string, d time.Duration) {
	m.dur.WithLabelValues(name).Observe(d.Seconds())
}

// forget drops a target's counted series.
func (m *collector) forget(name string) {
	m.calls.DeletePartialMatch(prometheus.Labels{"target": name})
	m.dur.DeletePartialMatch(prometheus.Labels{"target": name})
}
