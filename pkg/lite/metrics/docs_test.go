package metrics

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/relay"
	"go.minekube.com/gate/pkg/lite/strategy"
	"go.minekube.com/gate/pkg/lite/wake"
)

// docTarget is a wake target that starts at once.
type docTarget struct{}

func (docTarget) Key() string { return "exec true" }
func (docTarget) Wake(context.Context, wake.Request) (wake.Result, error) {
	return wake.Result{}, nil
}
func (docTarget) Sleep(context.Context, wake.Request) error { return nil }
func (docTarget) Running(context.Context) (bool, error)     { return false, nil }

const (
	metricsDoc = "../../../docs/lite/metrics.md"
	dashboard  = "../../../docs/lite/grafana/gate-lite.json"
)

// exported returns the name of every gate_lite_ metric with at least one series
// after a session, a status answer, a rejection, a reload and a scrape.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	m := New(Options{NoProcess: true})
	d := &strategy.LatencyDecision{Best: b1}
	m.WatchBackends(&fakeSource{ready: true, routes: []lite.RouteInfo{{Key: route, Decision: d}}, infos: []lite.BackendInfo{
		{Route: route, Backend: b1, Known: true, Score: 12, HasScore: true, State: strategy.BackendState{
			Health: strategy.HealthHealthy, Latency: time.Millisecond, HasLatency: true,
			Report: &strategy.Report{Online: 1, Max: 2, HasPlayers: true}}},
		{Route: wildcard, Backend: tpl, Template: tpl},
	}})
	evs := append(login(route, b1, b1, lite.ReasonClientClosed, 1, 1),
		status("cache"), rejected("", lite.ReasonNoRoute))
	for i := range evs {
		m.Observe(&evs[i])
	}
	m.ObserveReload(nil)
	m.WatchRelay(func() relay.Stats { return relay.Stats{Parked: 1, PipesOpen: 2} })
	m.WatchHeld(func() int64 { return 3 })
	// The wake targets' metrics are the Coordinator's, registered beside these
	// by cmd/gate: one woken target gives each a series.
	wc := wake.NewCoordinator(wake.Options{})
	t.Cleanup(wc.Close)
	wc.Bind([]wake.Binding{{Target: docTarget{}}})
	mctest.WaitFor(t, "the target found stopped", 5*time.Second, func() bool { return wc.Asleep(docTarget{}.Key()) })
	if _, err := wc.Wake(context.Background(), docTarget{}.Key(), wake.Request{}, func(context.Context, wake.Result) (string, bool) {
		return b1, true
	}); err != nil {
		t.Fatal(err)
	}
	m.Registry().MustRegister(wc.Collector())
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	return names
}

// TestEveryMetricDocumented keeps docs/lite/metrics.md complete: each metric has
// a table row naming it, and the doc names no metric that does not exist.
func TestEveryMetricDocumented(t *testing.T) {
	doc, err := os.ReadFile(metricsDoc)
	if err != nil {
		t.Fatal(err)
	}
	names := exported(t)
	if len(names) != 29 { // every metric of this package and wake's, so none escapes the checks below
		t.Fatalf("only %d metrics exported: %v", len(names), names)
	}
	for n := range names {
		if !strings.Contains(string(doc), "| `"+n+"` |") {
			t.Errorf("metrics.md has no row for %s", n)
		}
	}
	for _, n := range regexp.MustCompile("`(gate_lite_[a-z_]+)`").FindAllStringSubmatch(string(doc), -1) {
		if !names[n[1]] {
			t.Errorf("metrics.md documents %s, which is not exported", n[1])
		}
	}
}

// TestDashboardQueriesExist checks that every metric the Grafana dashboard
// queries exists (histograms through their _bucket series).
func TestDashboardQueriesExist(t *testing.T) {
	data, err := os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("dashboard is not JSON: %v", err)
	}
	names := exported(t)
	re := regexp.MustCompile(`gate_lite_[a-z_]+`)
	queries := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			queries++
			for _, n := range re.FindAllString(tg.Expr, -1) {
				if !names[n] && !names[strings.TrimSuffix(n, "_bucket")] {
					t.Errorf("panel %q queries %s, which is not exported", p.Title, n)
				}
			}
		}
	}
	if queries == 0 {
		t.Fatal("the dashboard has no queries")
	}
}
