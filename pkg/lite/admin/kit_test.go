package admin

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// fakeSource is a fixed view of a proxy.
type fakeSource struct {
	ready atomic.Bool
}

var reportAt = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func (f *fakeSource) Ready() bool { return f.ready.Load() }

func (f *fakeSource) Routes() []lite.RouteInfo {
	return []lite.RouteInfo{
		{Key: "play.example.com", Origin: "config.yml:12", Hosts: []string{"play.example.com"}, Strategy: "least-connections",
			Backends: []string{"10.0.0.1:25565", "10.0.0.2:25565"}, Fallback: true},
		{Key: "*.dev.example.com", Origin: "kubernetes games/dev", Hosts: []string{"*.dev.example.com"}, Strategy: "sequential",
			Backends: []string{"$1.dev.svc:25565"}},
	}
}

func (f *fakeSource) Backends() []lite.BackendInfo {
	return []lite.BackendInfo{
		{Route: "play.example.com", Backend: "10.0.0.1:25565", Origin: "config.yml:12", Known: true, Reason: "healthy", Eligible: true, Why: "eligible: healthy",
			State: strategy.BackendState{Addr: "10.0.0.1:25565", Active: 3, Health: strategy.HealthHealthy,
				Latency: 12500 * time.Microsecond, HasLatency: true, ReportAt: reportAt,
				Report: &strategy.Report{Online: 40, Max: 100, HasPlayers: true, Version: "Paper 1.20.4"}}},
		{Route: "play.example.com", Backend: "10.0.0.2:25565", Origin: "config.yml:12", Known: true, Reason: "ejected",
			Why: "demoted: ejected after 3 dial failures in a row until 12:00:30",
			State: strategy.BackendState{Addr: "10.0.0.2:25565", Health: strategy.HealthEjected,
				EjectedUntil: reportAt.Add(30 * time.Second)}},
		{Route: "*.dev.example.com", Backend: "$1.dev.svc:25565", Template: "$1.dev.svc:25565", Eligible: true,
			Why: "template: each player's host fills in $n; state is kept per expanded address"},
		{Route: "*.dev.example.com", Backend: "abc.dev.svc:25565", Template: "$1.dev.svc:25565", Known: true,
			Reason: "unmeasured", Eligible: true, Why: "eligible: not measured yet, tried like a healthy one", HasScore: true, Score: 0.25,
			State: strategy.BackendState{Addr: "abc.dev.svc:25565", Active: 1, Health: strategy.HealthUnknown}},
	}
}

func newTestServer(t *testing.T, o Options) (*Server, *fakeSource) {
	t.Helper()
	src := &fakeSource{}
	src.ready.Store(true)
	o.Source = src
	return New(o), src
}

// serve runs the server on a loopback port until the test ends.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	ln := mctest.Listen(t)
	mctest.Run(t, "Serve", func(ctx context.Context) error { return s.Serve(ctx, ln) })
	return "http://" + ln.Addr().String()
}

// fetchTable serves s, checks that path refuses a request without token, then
// fetches path's list through the Client with token and renders it with write.
func fetchTable[T any](t *testing.T, s *Server, path, token string,
	fetch func(*Client, context.Context) (T, error), write func(io.Writer, T) error) string {
	t.Helper()
	url := serve(t, s)
	if code, _ := do(t, s.Handler(), "GET", path, ""); code != 401 {
		t.Fatalf("without the token: %d, want 401", code)
	}
	list, err := fetch(&Client{URL: url, Token: token}, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := write(&out, list); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// wantTable fails unless got is the lines, each ended by a newline.
func wantTable(t *testing.T, got string, lines ...string) {
	t.Helper()
	if want := strings.Join(lines, "\n") + "\n"; got != want {
		t.Fatalf("table:\n%s\nwant:\n%s", got, want)
	}
}
