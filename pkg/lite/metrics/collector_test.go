package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// fakeSource is a fixed backend view.
type fakeSource struct {
	routes []lite.RouteInfo
	infos  []lite.BackendInfo
	ready  bool
}

func (f *fakeSource) Routes() []lite.RouteInfo { return f.routes }

func (f *fakeSource) Backends() []lite.BackendInfo { return f.infos }
func (f *fakeSource) Ready() bool                  { return f.ready }

// collectorView is a route with a healthy, an ejected (until until) and an
// unknown backend, and a template route with two expansions.
func collectorView(until time.Time) *fakeSource {
	return &fakeSource{ready: true, infos: []lite.BackendInfo{
		{Route: route, Backend: b1, Known: true, Eligible: true, State: strategy.BackendState{
			Addr: b1, Health: strategy.HealthHealthy, Latency: 12 * time.Millisecond, HasLatency: true,
			Report: &strategy.Report{Online: 7, Max: 100, HasPlayers: true},
		}},
		{Route: route, Backend: "10.0.0.2:25565", Known: true, State: strategy.BackendState{
			Addr: "10.0.0.2:25565", Health: strategy.HealthEjected, EjectedUntil: until,
		}},
		{Route: route, Backend: "10.0.0.3:25565", Eligible: true},
		{Route: wildcard, Backend: tpl, Template: tpl, Eligible: true},
		{Route: wildcard, Backend: "abc.dev.svc:25565", Template: tpl, Known: true, Eligible: true},
		{Route: wildcard, Backend: "xyz.dev.svc:25565", Template: tpl, Known: true, Eligible: true},
	}}
}

func TestBackendCollector(t *testing.T) {
	until := time.Unix(1700000030, 0)
	src := collectorView(until)
	m := New(Options{NoProcess: true})
	m.WatchBackends(src)
	// A second scrape with the same deadline is the same ejection; a new deadline
	// is another one.
	for _, u := range []time.Time{until, until, until.Add(time.Minute)} {
		src.infos[1].State.EjectedUntil = u
		if _, err := m.Registry().Gather(); err != nil {
			t.Fatal(err)
		}
	}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(collectorWant),
		"gate_lite_backend_ejections_total", "gate_lite_backend_eligible", "gate_lite_backend_health",
		"gate_lite_backend_latency_seconds", "gate_lite_backend_players_max", "gate_lite_backend_players_online",
		"gate_lite_ready", "gate_lite_template_backends"); err != nil {
		t.Fatal(err)
	}
}

// collectorWant is what collectorView leaves after three scrapes, the last with
// a new ejection deadline.
const collectorWant = `
# HELP gate_lite_backend_ejections_total Passive ejections of the backend (consecutive dial failures) seen by the scrapes of this process.
# TYPE gate_lite_backend_ejections_total counter
gate_lite_backend_ejections_total{backend="10.0.0.1:25565",route="play.example.com"} 0
gate_lite_backend_ejections_total{backend="10.0.0.2:25565",route="play.example.com"} 2
gate_lite_backend_ejections_total{backend="10.0.0.3:25565",route="play.example.com"} 0
# HELP gate_lite_backend_eligible 1 when the route's strategy orders the backend among the usable ones (demoted backends are 0).
# TYPE gate_lite_backend_eligible gauge
gate_lite_backend_eligible{backend="10.0.0.1:25565",route="play.example.com"} 1
gate_lite_backend_eligible{backend="10.0.0.2:25565",route="play.example.com"} 0
gate_lite_backend_eligible{backend="10.0.0.3:25565",route="play.example.com"} 1
# HELP gate_lite_backend_health 1 for the backend's current health state (healthy, unknown, ejected, down), 0 for the others.
# TYPE gate_lite_backend_health gauge
gate_lite_backend_health{backend="10.0.0.1:25565",route="play.example.com",state="down"} 0
gate_lite_backend_health{backend="10.0.0.1:25565",route="play.example.com",state="ejected"} 0
gate_lite_backend_health{backend="10.0.0.1:25565",route="play.example.com",state="healthy"} 1
gate_lite_backend_health{backend="10.0.0.1:25565",route="play.example.com",state="unknown"} 0
gate_lite_backend_health{backend="10.0.0.2:25565",route="play.example.com",state="down"} 0
gate_lite_backend_health{backend="10.0.0.2:25565",route="play.example.com",state="ejected"} 1
gate_lite_backend_health{backend="10.0.0.2:25565",route="play.example.com",state="healthy"} 0
gate_lite_backend_health{backend="10.0.0.2:25565",route="play.example.com",state="unknown"} 0
gate_lite_backend_health{backend="10.0.0.3:25565",route="play.example.com",state="down"} 0
gate_lite_backend_health{backend="10.0.0.3:25565",route="play.example.com",state="ejected"} 0
gate_lite_backend_health{backend="10.0.0.3:25565",route="play.example.com",state="healthy"} 0
gate_lite_backend_health{backend="10.0.0.3:25565",route="play.example.com",state="unknown"} 1
# HELP gate_lite_backend_latency_seconds The backend's smoothed latency estimate (absent until measured).
# TYPE gate_lite_backend_latency_seconds gauge
gate_lite_backend_latency_seconds{backend="10.0.0.1:25565",route="play.example.com"} 0.012
# HELP gate_lite_backend_players_max players.max from the backend's last status response (absent without one).
# TYPE gate_lite_backend_players_max gauge
gate_lite_backend_players_max{backend="10.0.0.1:25565",route="play.example.com"} 100
# HELP gate_lite_backend_players_online players.online from the backend's last status response (absent without one).
# TYPE gate_lite_backend_players_online gauge
gate_lite_backend_players_online{backend="10.0.0.1:25565",route="play.example.com"} 7
# HELP gate_lite_ready 1 while the player listener is bound and a config is loaded.
# TYPE gate_lite_ready gauge
gate_lite_ready 1
# HELP gate_lite_template_backends Addresses a $n backend template currently expands to that the proxy tracks.
# TYPE gate_lite_template_backends gauge
gate_lite_template_backends{backend="$1.dev.svc:25565",route="*.dev.example.com"} 2
`
