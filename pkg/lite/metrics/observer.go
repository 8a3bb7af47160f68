package metrics

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"go.minekube.com/gate/pkg/edition/java/lite"
)

// Dial outcomes (the result label of backend_dials_total).
const (
	DialOK       = "ok"
	DialRefused  = "refused"
	DialTimeout  = "timeout"
	DialCanceled = "canceled"
	DialError    = "error"
)

var dialResults = [...]string{DialOK, DialRefused, DialTimeout, DialCanceled, DialError}

// endReasons are the reasons of EventEnded with a cached series; any other
// reason still counts, through the slower labelled lookup.
var endReasons = [...]string{lite.ReasonClientClosed, lite.ReasonBackendClosed, lite.ReasonError, lite.ReasonShutdown}

// statusSources are the sources of EventStatus with a cached series.
var statusSources = [...]string{lite.SourceCache, lite.SourceBackend, lite.SourceFallback, lite.SourceLastGood}

// backendKey identifies a backend's series: the route and the backend as configured.
type backendKey struct{ route, backend string }

// rejectKey identifies a rejection series.
type rejectKey struct{ reason, route string }

// backendSeries caches the labelled children of one route and backend, so that
// an event costs a map lookup and an atomic add, not a label hash and allocation.
type backendSeries struct {
	sessions atomic.Int64 // live, so that forget keeps the series of a running session
	active   prometheus.Gauge
	started  prometheus.Counter
	ended    [len(endReasons)]prometheus.Counter
	dials    [len(dialResults)]prometheus.Counter
	dialTime prometheus.Observer
}

// routeSeries caches one route's children.
type routeSeries struct {
	status   [len(statusSources)]prometheus.Counter
	up, down prometheus.Counter
}

// Observe counts one session event. It is called on the connection's goroutine
// and never blocks.
func (m *Metrics) Observe(e *lite.Event) {
	switch e.Kind {
	case lite.EventAccepted:
		m.accepted.Inc()
	case lite.EventRejected:
		m.rejection(e.Reason, e.Route).Inc()
	case lite.EventDial:
		b := m.backend(e.Route, e.BackendTemplate)
		res := DialResult(e.Err)
		b.dials[indexOf(dialResults[:], res)].Inc()
		if e.Err == nil {
			b.dialTime.Observe(e.Duration.Seconds())
		}
	case lite.EventJoined:
		b := m.backend(e.Route, e.BackendTemplate)
		b.sessions.Add(1)
		b.started.Inc()
		b.active.Inc()
	case lite.EventEnded:
		m.observeEnded(e)
	case lite.EventStatus:
		if i := indexOf(statusSources[:], e.Source); i >= 0 {
			m.route(e.Route).status[i].Inc()
			return
		}
		m.status.WithLabelValues(e.Route, e.Source).Inc()
	}
}

func (m *Metrics) observeEnded(e *lite.Event) {
	b := m.backend(e.Route, e.BackendTemplate)
	b.sessions.Add(-1)
	b.active.Dec()
	if i := indexOf(endReasons[:], e.Reason); i >= 0 {
		b.ended[i].Inc()
	} else {
		m.ended.WithLabelValues(e.Route, e.BackendTemplate, e.Reason).Inc()
	}
	r := m.route(e.Route)
	r.up.Add(float64(max(e.BytesUp, 0)))
	r.down.Add(float64(max(e.BytesDown, 0)))
}

// DialResult classifies a dial error into the result label.
func DialResult(err error) string {
	if err == nil {
		return DialOK // the common case stays free of errors.As's allocation
	}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return DialRefused
	case errors.Is(err, context.Canceled):
		return DialCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return DialTimeout
	default:
		return DialError
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// cached returns m[k], making it with mk under the write lock the first time.
// The read lock serves every later event, so the connection path never waits
// on another connection's first event of the same key.
func cached[K comparable, V any](mu *sync.RWMutex, m map[K]V, k K, mk func() V) V {
	mu.RLock()
	v, ok := m[k]
	mu.RUnlock()
	if ok {
		return v
	}
	mu.Lock()
	defer mu.Unlock()
	if v, ok = m[k]; !ok {
		v = mk()
		m[k] = v
	}
	return v
}

func (m *Metrics) backend(route, backend string) *backendSeries {
	return cached(&m.mu, m.backends, backendKey{route, backend}, func() *backendSeries {
		b := &backendSeries{
			active:   m.active.WithLabelValues(route, backend),
			started:  m.started.WithLabelValues(route, backend),
			dialTime: m.dialTime.WithLabelValues(route, backend),
		}
		for i, r := range endReasons {
			b.ended[i] = m.ended.WithLabelValues(route, backend, r)
		}
		for i, r := range dialResults {
			b.dials[i] = m.dials.WithLabelValues(route, backend, r)
		}
		return b
	})
}

func (m *Metrics) route(route string) *routeSeries {
	return cached(&m.mu, m.routes, route, func() *routeSeries {
		r := &routeSeries{
			up:   m.bytes.WithLabelValues(route, "up"),
			down: m.bytes.WithLabelValues(route, "down"),
		}
		for i, s := range statusSources {
			r.status[i] = m.status.WithLabelValues(route, s)
		}
		return r
	})
}

// rejection returns the rejected counter of reason and route. Rejections are what
// scanners and outages flood, so they are cached like the rest; the key space is
// the fixed reasons times the routes.
func (m *Metrics) rejection(reason, route string) prometheus.Counter {
	return cached(&m.mu, m.rejects, rejectKey{reason, route}, func() prometheus.Counter {
		return m.rejected.WithLabelValues(reason, route)
	})
}
