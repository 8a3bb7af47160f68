package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"go.minekube.com/gate/pkg/edition/java/lite"
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

// onB1 is an event of kind on route's configured backend b1; f sets the rest.
func onB1(kind lite.EventKind, f func(e *lite.Event)) lite.Event {
	return ev(kind, func(e *lite.Event) {
		e.Route, e.BackendTemplate = route, b1
		if f != nil {
			f(e)
		}
	})
}

// dial is a dial of b1 that failed with err, or took d when err is nil.
func dial(err error, d time.Duration) lite.Event {
	return onB1(lite.EventDial, func(e *lite.Event) { e.Err, e.Duration = err, d })
}

// status is a status answer on route from source.
func status(source string) lite.Event {
	return ev(lite.EventStatus, func(e *lite.Event) { e.Route, e.Source = route, source })
}

// rejected is a connection closed for reason; rt is "" before routing.
func rejected(rt, reason string) lite.Event {
	return ev(lite.EventRejected, func(e *lite.Event) { e.Route, e.Reason = rt, reason })
}

var refused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// observeCases are event sequences and the series they must leave, as the
// Prometheus text format prints them.
var observeCases = []struct {
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
		events: slices.Concat(login(wildcard, "abc.dev.svc:25565", tpl, lite.ReasonBackendClosed, 1, 1),
			login(wildcard, "xyz.dev.svc:25565", tpl, lite.ReasonBackendClosed, 1, 1)),
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
			onB1(lite.EventJoined, nil),
			onB1(lite.EventJoined, nil),
			onB1(lite.EventEnded, func(e *lite.Event) { e.Reason = lite.ReasonError }),
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
			dial(refused, 0),
			dial(fmt.Errorf("dial: %w", context.DeadlineExceeded), 0),
			dial(context.Canceled, 0),
			dial(errors.New("no such host"), 0),
			dial(nil, 2*time.Millisecond),
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
			dial(refused, 0),
			dial(nil, 2*time.Millisecond),
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
			status("backend"), status("cache"), status("cache"), status("fallback"), status("last-known-good"),
		},
		names: []string{"gate_lite_status_requests_total"},
		want: `
# HELP gate_lite_status_requests_total Status (server list) requests answered, by source (cache, backend, fallback, last-known-good, asleep).
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
			rejected("", lite.ReasonMalformed),
			rejected("", lite.ReasonNoRoute),
			rejected(route, lite.ReasonUnavailable),
			rejected(route, lite.ReasonUnavailable),
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
		events: slices.Concat(login(route, b1, b1, lite.ReasonClientClosed, 1, 1),
			login(route, b1, b1, lite.ReasonBackendClosed, 1, 1),
			login(route, b1, b1, "something-new", 1, 1)),
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

func TestObserve(t *testing.T) {
	for _, tt := range observeCases {
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
	e := rejected("", lite.ReasonMalformed)
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(&e)
	}
}
