package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/strategy"
)

const (
	route    = "play.example.com"
	wildcard = "*.dev.example.com"
	b1       = "10.0.0.1:25565"
	tpl      = "$1.dev.svc:25565"
)

func ev(kind lite.EventKind, f func(e *lite.Event)) lite.Event {
	e := lite.Event{Kind: kind}
	if f != nil {
		f(&e)
	}
	return e
}

// login is the event sequence of one player session on route/backend.
func login(rt, backend, tmpl, reason string, up, down int64) []lite.Event {
	set := func(e *lite.Event) { e.Route, e.Backend, e.BackendTemplate = rt, backend, tmpl }
	return []lite.Event{
		ev(lite.EventAccepted, nil),
		ev(lite.EventRouted, func(e *lite.Event) { e.Route = rt }),
		ev(lite.EventDial, func(e *lite.Event) { set(e); e.Duration = 3 * time.Millisecond }),
		ev(lite.EventJoined, set),
		ev(lite.EventEnded, func(e *lite.Event) { set(e); e.Reason, e.BytesUp, e.BytesDown = reason, up, down }),
		ev(lite.EventClosed, nil),
	}
}

func TestObserve(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name   string
		events []lite.Event
		names  []string
		want   string
	}{
		{
			name:   "a session counts started, ended and bytes",
			events: login(route, b1, b1, lite.ReasonClientClosed, 100, 2000),
			names: []string{"gate_lite_sessions_active", "gate_lite_sessions_started_total",
				"gate_lite_relayed_bytes_total", "gate_lite_connections_accepted_total"},
			want: `
# HELP gate_lite_connections_accepted_total TCP connections accepted on the player listener.
# TYPE gate_lite_connections_accepted_total counter
gate_lite_connections_accepted_total 1
# HELP gate_lite_relayed_bytes_total Bytes relayed by ended sessions, by direction (up: player to backend).
# TYPE gate_lite_relayed_bytes_total counter
gate_lite_relayed_bytes_total{direction="down",route="play.example.com"} 2000
gate_lite_relayed_bytes_total{direction="up",route="play.example.com"} 100
# HELP gate_lite_sessions_active Player sessions currently relayed, by route and configured backend.
# TYPE gate_lite_sessions_active gauge
gate_lite_sessions_active{backend="10.0.0.1:25565",route="play.example.com"} 0
# HELP gate_lite_sessions_started_total Player sessions handed to a backend.
# TYPE gate_lite_sessions_started_total counter
gate_lite_sessions_started_total{backend="10.0.0.1:25565",route="play.example.com"} 1
`,
		},
		{
			name: "a templated backend is labelled by its template, never by the host a client typed",
			events: append(login(wildcard, "abc.dev.svc:25565", tpl, lite.ReasonBackendClosed, 1, 1),
				login(wildcard, "xyz.dev.svc:25565", tpl, lite.ReasonBackendClosed, 1, 1)...),
			names: []string{"gate_lite_sessions_started_total"},
			want: `
# HELP gate_lite_sessions_started_total Player sessions handed to a backend.
# TYPE gate_lite_sessions_started_total counter
gate_lite_sessions_started_total{backend="$1.dev.svc:25565",route="*.dev.example.com"} 2
`,
		},
		{
			name: "an unfinished session stays active",
			events: []lite.Event{
				ev(lite.EventJoined, func(e *lite.Event) { e.Route, e.BackendTemplate = route, b1 }),
				ev(lite.EventJoined, func(e *lite.Event) { e.Route, e.BackendTemplate = route, b1 }),
				ev(lite.EventEnded, func(e *lite.Event) { e.Route, e.BackendTemplate, e.Reason = route, b1, lite.ReasonError }),
			},
			names: []string{"gate_lite_sessions_active"},
			want: `
# HELP gate_lite_sessions_active Player sessions currently relayed, by route and configured backend.
# TYPE gate_lite_sessions_active gauge
gate_lite_sessions_active{backend="10.0.0.1:25565",route="play.example.com"} 1
`,
		},
		{
			name: "dial outcomes are classified",
			events: []lite.Event{
				ev(lite.EventDial, func(e *lite.Event) { e.Route, e.BackendTemplate, e.Err = route, b1, refused }),
				ev(lite.EventDial, func(e *lite.Event) {
					e.Route, e.BackendTemplate, e.Err = route, b1, fmt.Errorf("dial: %w", context.DeadlineExceeded)
				}),
				ev(lite.EventDial, func(e *lite.Event) { e.Route, e.BackendTemplate, e.Err = route, b1, context.Canceled }),
				ev(lite.EventDial, func(e *lite.Event) { e.Route, e.BackendTemplate, e.Err = route, b1, errors.New("no such host") }),
				ev(lite.EventDial, func(e *lite.Event) { e.Route, e.BackendTemplate, e.Duration = route, b1, 2*time.Millisecond }),
			},
			names: []string{"gate_lite_backend_dials_total"},
			want: `
# HELP gate_lite_backend_dials_total Dial attempts to backends for players, by outcome (ok, refused, timeout, canceled, error).
# TYPE gate_lite_backend_dials_total counter
gate_lite_backend_dials_total{backend="10.0.0.1:25565",result="canceled",route="play.example.com"} 1
gate_lite_backend_dials_total{backend="10.0.0.1:25565",result="error",route="play.example.com"} 1
gate_lite_backend_dials_total{backend="10.0.0.1:25565",result="ok",route="play.example.com"} 1
gate_lite_backend_dials_total{backend="10.0.0.1:25565",result="refused",route="play.example.com"} 1
gate_lite_backend_dials_total{backend="10.0.0.1:25565",result="timeout",route="play.example.com"} 1
`,
		},
		{
			name: "only successful dials time the connect",
			events: []lite.Event{
				ev(lite.EventDial, func(e *lite.Event) { e.Route, e.BackendTemplate, e.Err = route, b1, refused }),
				ev(lite.EventDial, func(e *lite.Event) { e.Route, e.BackendTemplate, e.Duration = route, b1, 2*time.Millisecond }),
			},
			names: []string{"gate_lite_backend_dial_duration_seconds"},
			want: `
# HELP gate_lite_backend_dial_duration_seconds Connect time of successful dials to backends.
# TYPE gate_lite_backend_dial_duration_seconds histogram
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.0005"} 0
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.001"} 0
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.0025"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.005"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.01"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.025"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.05"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.1"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.25"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="0.5"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="1"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="2.5"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="5"} 1
gate_lite_backend_dial_duration_seconds_bucket{backend="10.0.0.1:25565",route="play.example.com",le="+Inf"} 1
gate_lite_backend_dial_duration_seconds_sum{backend="10.0.0.1:25565",route="play.example.com"} 0.002
gate_lite_backend_dial_duration_seconds_count{backend="10.0.0.1:25565",route="play.example.com"} 1
`,
		},
		{
			name: "status requests by source",
			events: []lite.Event{
				ev(lite.EventStatus, func(e *lite.Event) { e.Route, e.Source = route, "backend" }),
				ev(lite.EventStatus, func(e *lite.Event) { e.Route, e.Source = route, "cache" }),
				ev(lite.EventStatus, func(e *lite.Event) { e.Route, e.Source = route, "cache" }),
				ev(lite.EventStatus, func(e *lite.Event) { e.Route, e.Source = route, "fallback" }),
				ev(lite.EventStatus, func(e *lite.Event) { e.Route, e.Source = route, "last-known-good" }),
			},
			names: []string{"gate_lite_status_requests_total"},
			want: `
# HELP gate_lite_status_requests_total Status (server list) requests answered, by source (cache, backend, fallback, last-known-good).
# TYPE gate_lite_status_requests_total counter
gate_lite_status_requests_total{route="play.example.com",source="backend"} 1
gate_lite_status_requests_total{route="play.example.com",source="cache"} 2
gate_lite_status_requests_total{route="play.example.com",source="fallback"} 1
gate_lite_status_requests_total{route="play.example.com",source="last-known-good"} 1
`,
		},
		{
			name: "rejections by reason, with the route once known",
			events: []lite.Event{
				ev(lite.EventRejected, func(e *lite.Event) { e.Reason = lite.ReasonMalformed }),
				ev(lite.EventRejected, func(e *lite.Event) { e.Reason = lite.ReasonNoRoute }),
				ev(lite.EventRejected, func(e *lite.Event) { e.Route, e.Reason = route, lite.ReasonUnavailable }),
				ev(lite.EventRejected, func(e *lite.Event) { e.Route, e.Reason = route, lite.ReasonUnavailable }),
			},
			names: []string{"gate_lite_connections_rejected_total"},
			want: `
# HELP gate_lite_connections_rejected_total Connections closed before reaching a backend, by reason (route is empty before routing).
# TYPE gate_lite_connections_rejected_total counter
gate_lite_connections_rejected_total{reason="malformed",route=""} 1
gate_lite_connections_rejected_total{reason="no-route",route=""} 1
gate_lite_connections_rejected_total{reason="unavailable",route="play.example.com"} 2
`,
		},
		{
			name: "sessions ended by reason",
			events: append(login(route, b1, b1, lite.ReasonClientClosed, 1, 1),
				append(login(route, b1, b1, lite.ReasonBackendClosed, 1, 1),
					login(route, b1, b1, "something-new", 1, 1)...)...),
			names: []string{"gate_lite_sessions_ended_total"},
			want: `
# HELP gate_lite_sessions_ended_total Player sessions ended, by which side ended them.
# TYPE gate_lite_sessions_ended_total counter
gate_lite_sessions_ended_total{backend="10.0.0.1:25565",reason="backend-closed",route="play.example.com"} 1
gate_lite_sessions_ended_total{backend="10.0.0.1:25565",reason="client-closed",route="play.example.com"} 1
gate_lite_sessions_ended_total{backend="10.0.0.1:25565",reason="error",route="play.example.com"} 0
gate_lite_sessions_ended_total{backend="10.0.0.1:25565",reason="shutdown",route="play.example.com"} 0
gate_lite_sessions_ended_total{backend="10.0.0.1:25565",reason="something-new",route="play.example.com"} 1
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{NoProcess: true})
			for i := range tt.events {
				m.Observe(&tt.events[i])
			}
			if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(tt.want), tt.names...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestObserveReload(t *testing.T) {
	now := time.Unix(1700000000, 0)
	m := New(Options{NoProcess: true, Now: func() time.Time { return now }})
	now = now.Add(time.Minute)
	m.ObserveReload(nil)
	m.ObserveReload(errors.New("config.yml:3: bad"))
	m.ObserveReload(errors.New("config.yml:3: bad"))
	want := `
# HELP gate_lite_config_last_reload_success_timestamp_seconds When the config in force was loaded (start or last successful reload).
# TYPE gate_lite_config_last_reload_success_timestamp_seconds gauge
gate_lite_config_last_reload_success_timestamp_seconds 1.70000006e+09
# HELP gate_lite_config_reloads_total Config reloads by result (ok, error).
# TYPE gate_lite_config_reloads_total counter
gate_lite_config_reloads_total{result="error"} 2
gate_lite_config_reloads_total{result="ok"} 1
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"gate_lite_config_reloads_total", "gate_lite_config_last_reload_success_timestamp_seconds"); err != nil {
		t.Fatal(err)
	}
}

// fakeSource is a fixed backend view.
type fakeSource struct {
	routes []lite.RouteInfo
	infos  []lite.BackendInfo
	ready  bool
}

func (f *fakeSource) Routes() []lite.RouteInfo { return f.routes }

func (f *fakeSource) Backends() []lite.BackendInfo { return f.infos }
func (f *fakeSource) Ready() bool                  { return f.ready }

func TestBackendCollector(t *testing.T) {
	until := time.Unix(1700000030, 0)
	src := &fakeSource{ready: true, infos: []lite.BackendInfo{
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
	want := `
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
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"gate_lite_backend_ejections_total", "gate_lite_backend_eligible", "gate_lite_backend_health",
		"gate_lite_backend_latency_seconds", "gate_lite_backend_players_max", "gate_lite_backend_players_online",
		"gate_lite_ready", "gate_lite_template_backends"); err != nil {
		t.Fatal(err)
	}
}

func TestProcessCollectorsRegistered(t *testing.T) {
	m := New(Options{})
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		if mf.GetName() == "go_goroutines" {
			found = true
		}
	}
	if !found {
		t.Fatal("go_goroutines missing: the Go collector is not registered")
	}
}

func BenchmarkObserveSession(b *testing.B) {
	m := New(Options{NoProcess: true})
	evs := login(route, b1, b1, lite.ReasonClientClosed, 100, 2000)
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			m.Observe(&evs[i])
		}
	}
}

func BenchmarkObserveSessionParallel(b *testing.B) {
	m := New(Options{NoProcess: true})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		evs := login(route, b1, b1, lite.ReasonClientClosed, 100, 2000)
		for pb.Next() {
			for i := range evs {
				m.Observe(&evs[i])
			}
		}
	})
}

func BenchmarkObserveRejected(b *testing.B) {
	m := New(Options{NoProcess: true})
	e := ev(lite.EventRejected, func(e *lite.Event) { e.Reason = lite.ReasonMalformed })
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(&e)
	}
}
