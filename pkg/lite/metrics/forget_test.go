package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"go.minekube.com/gate/pkg/edition/java/lite"
)

// seriesOf counts the series of the event-fed metrics that name route.
func seriesOf(t *testing.T, m *Metrics, route string) int {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		for _, s := range mf.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == labelRoute && l.GetValue() == route {
					n++
				}
			}
		}
	}
	return n
}

// Routes and backends that leave the config (a discovery source's churn) leave
// /metrics at the next scrape, unless a session on them still runs; without
// that every address ever published stayed for the life of the process.
func TestSeriesOfRoutesNoLongerInForceAreForgotten(t *testing.T) {
	const gone, held = "docker/old.example.com", "docker/held.example.com"
	src := &fakeSource{ready: true, routes: []lite.RouteInfo{{Key: route}},
		infos: []lite.BackendInfo{{Route: route, Backend: b1, Eligible: true}}}
	m := New(Options{NoProcess: true})
	m.WatchBackends(src)
	events := append(login(route, b1, b1, lite.ReasonClientClosed, 10, 20), login(gone, "10.0.0.9:25565", "10.0.0.9:25565", lite.ReasonClientClosed, 1, 2)...)
	events = append(events, login(held, b1, b1, "", 0, 0)[:4]...) // joined, not ended
	events = append(events, rejected(gone, lite.ReasonAdmission), rejected("", lite.ReasonAdmission), status(lite.SourceCache))
	for i := range events {
		m.Observe(&events[i])
	}
	m.Observe(&lite.Event{Kind: lite.EventStatus, Route: gone, Source: lite.SourceBackend})
	for range 2 { // the first scrape may collect the counters before forgetting
		seriesOf(t, m, route)
	}
	if n := seriesOf(t, m, gone); n != 0 {
		t.Fatalf("%d series of a route no longer in force", n)
	}
	if seriesOf(t, m, route) == 0 || seriesOf(t, m, held) == 0 {
		t.Fatal("a route in force, or one with a live session, lost its series")
	}
	if n := testutil.ToFloat64(m.rejected.WithLabelValues(lite.ReasonAdmission, "")); n != 1 {
		t.Fatalf("rejections before routing = %v, want kept", n)
	}
	ended := login(held, b1, b1, lite.ReasonClientClosed, 0, 0)[4]
	m.Observe(&ended)
	seriesOf(t, m, held)
	if n := seriesOf(t, m, held); n != 0 {
		t.Fatalf("%d series of a route whose last session ended", n)
	}
}
