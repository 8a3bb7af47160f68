package plan

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenPlans are the plans pinned in testdata, one per behaviour worth
// watching when the strategies change.
var goldenPlans = []struct {
	name string
	o    Options
}{
	{"round-robin", Options{Strategy: strategy.RoundRobin, Backends: []string{"a", "b", "c"}, Count: 300}},
	{"least-connections-sessions", Options{
		Strategy: strategy.LeastConnections, Backends: []string{"a", "b", "c"},
		Session: time.Minute, Arrival: 500 * time.Millisecond, Noise: 10,
	}},
	{"lowest-latency-heterogeneous", Options{
		Strategy: strategy.LowestLatency, Backends: []string{"eu-1", "eu-2", "us-1"},
		Latency: map[string]time.Duration{"eu-1": 20 * time.Millisecond, "eu-2": 28 * time.Millisecond, "us-1": 110 * time.Millisecond},
		Noise:   10,
	}},
	{"dead-first-backend", Options{
		Strategy: strategy.Sequential, Backends: []string{"dead", "b", "c"}, Fail: []string{"dead"}, Count: 300,
	}},
	{"dead-backend-health-checks", Options{
		Strategy: strategy.RoundRobin, Backends: []string{"a", "dead", "c"}, Fail: []string{"dead"}, Count: 300,
		Health: strategy.HealthCheck{Enabled: true, Interval: 10 * time.Second},
	}},
}

func render(t *testing.T, o Options) []byte {
	t.Helper()
	r, err := Run(o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatalf("WriteTable: %v", err)
	}
	buf.WriteString("\n")
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	return buf.Bytes()
}

func TestGoldenPlans(t *testing.T) {
	for _, tt := range goldenPlans {
		t.Run(tt.name, func(t *testing.T) {
			checkGolden(t, tt.name+".golden", render(t, tt.o))
		})
	}
}

func TestSameSeedSameBytes(t *testing.T) {
	for _, tt := range goldenPlans {
		t.Run(tt.name, func(t *testing.T) {
			if a, b := render(t, tt.o), render(t, tt.o); !bytes.Equal(a, b) {
				t.Fatal("two runs with one seed differ")
			}
		})
	}
}

func TestOtherSeedOtherPlan(t *testing.T) {
	o := Options{Strategy: strategy.Random, Backends: []string{"a", "b", "c"}, Count: 100}
	a := render(t, o)
	o.Seed = 7
	if b := render(t, o); bytes.Equal(a, b) {
		t.Fatal("random plans with seeds 42 and 7 are identical")
	}
}

func TestPlanOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		players []int // per backend, config order
		failed  int
	}{
		{"round-robin splits exactly", Options{Strategy: strategy.RoundRobin, Backends: []string{"a", "b", "c"}, Count: 30}, []int{10, 10, 10}, 0},
		{"sequential fills the first", Options{Backends: []string{"a", "b"}, Count: 20}, []int{20, 0}, 0},
		{"a dead first backend costs three dials", Options{Backends: []string{"dead", "b"}, Fail: []string{"dead"}, Count: 100}, []int{0, 100}, strategy.EjectFailures},
		{"lowest-latency prefers 50ms faster", Options{
			Strategy: strategy.LowestLatency, Backends: []string{"slow", "fast"}, Count: 100,
			Latency: map[string]time.Duration{"slow": 60 * time.Millisecond, "fast": 10 * time.Millisecond},
		}, []int{0, 100}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantPlacement(t, tt.o, tt.players, tt.failed)
		})
	}
}

func TestRouteHealthCheckConfig(t *testing.T) {
	tests := []struct {
		name       string
		health     strategy.HealthCheck
		interval   time.Duration
		wantProbes int
	}{
		{"disabled in config: no probes", strategy.HealthCheck{Interval: 10 * time.Second}, 0, 0},
		{"enabled in config", strategy.HealthCheck{Enabled: true, Interval: 10 * time.Second}, 0, 10},
		{"flag turns them on", strategy.HealthCheck{}, 20 * time.Second, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 100 players one second apart: checks at 0s and about every
			// interval after (jittered by 10%).
			r, err := Run(Options{Backends: []string{"a"}, Count: 100, Health: tt.health, HealthInterval: tt.interval})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Backends[0].Probes; got != tt.wantProbes {
				t.Fatalf("%d probes, want %d", got, tt.wantProbes)
			}
		})
	}
}

func TestInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
	}{
		{"no backends", Options{}},
		{"unknown strategy", Options{Strategy: "round_robin", Backends: []string{"a"}}},
		{"latency for a typo", Options{Backends: []string{"a"}, Latency: map[string]time.Duration{"b": time.Millisecond}}},
		{"fail for a typo", Options{Backends: []string{"a"}, Fail: []string{"A"}}},
		{"backend twice", Options{Backends: []string{"a", "a"}}},
		{"negative count", Options{Backends: []string{"a"}, Count: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Run(tt.o); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Run error = %v, want ErrInvalid", err)
			}
		})
	}
}

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (run with -update if intended):\n%s", path, got)
	}
}

// wantPlacement runs o and fails unless backend k got players[k] players and
// the run paid failed failed dials.
func wantPlacement(t *testing.T, o Options, players []int, failed int) {
	t.Helper()
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range players {
		if got := r.Backends[k].Players; got != want {
			t.Errorf("%s got %d players, want %d", r.Backends[k].Addr, got, want)
		}
	}
	if r.FailedDials != failed {
		t.Errorf("failed dials %d, want %d", r.FailedDials, failed)
	}
}
