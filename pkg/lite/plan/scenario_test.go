package plan

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// p2cOn runs one scenario for p2c alone.
func p2cOn(t *testing.T, name string, replicas int, seed uint64) StrategyRun {
	t.Helper()
	if sc := Scenarios()[slices.IndexFunc(Scenarios(), func(s Scenario) bool { return s.Name == name })]; sc.Options.Replicas == replicas {
		return scenarioRun(t, name, seed, strategy.P2C).Runs[0]
	}
	r, err := RunScenario(name, ScenarioOptions{Replicas: replicas, Seed: seed, Strategies: []strategy.Name{strategy.P2C}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Runs[0]
}

// The balance targets for p2c, on fixed seeds.
func TestP2CBalanceTargets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		replicas []int
		limit    float64
	}{
		{"equal", []int{1, 4, 16}, 1.15},
		{"heterogeneous-latency", []int{1, 4, 16}, 1.15},
		{"heterogeneous-capacity", []int{1, 4, 16}, 1.15},
		{"burst", []int{8}, 1.10},
	}
	for _, tt := range tests {
		for _, n := range tt.replicas {
			for _, seed := range []uint64{42, 7} {
				run := p2cOn(t, tt.scenario, n, seed)
				if got := run.Metrics.MaxOverFair; got > tt.limit || got < 1 {
					t.Errorf("%s, %d replicas, seed %d: max/fair %.2f, want 1..%.2f (players %v)",
						tt.scenario, n, seed, got, tt.limit, run.Players)
				}
			}
		}
	}
}

func TestP2CShedsADeadBackendWithinThreeDialsPerReplica(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 4, 16} {
		run := p2cOn(t, "dead-and-black-holed", n, 42)
		if d := run.Metrics.DeadDialsPerReplica; d == nil || *d > strategy.EjectFailures {
			t.Errorf("%d replicas: %v dials by one replica to a dead backend, want at most %d", n, d, strategy.EjectFailures)
		}
		if run.Unplaced != 0 {
			t.Errorf("%d replicas: %d players unplaced with three live backends", n, run.Unplaced)
		}
	}
}

func TestLowestLatencyDoesNotFlapOnNoise(t *testing.T) {
	t.Parallel()
	r := scenarioRun(t, "noisy-equal", DefaultSeed, strategy.LowestLatency, GateLowestLatency)
	ours, gate := r.Runs[0].Metrics.FlapsPerHour, r.Runs[1].Metrics.FlapsPerHour
	if ours == nil || *ours > 0.5 {
		t.Fatalf("lowest-latency flaps %v per hour on two equal noisy backends, want at most 0.5", ours)
	}
	if gate == nil || *gate < 1 {
		t.Fatalf("the Gate Lite model flaps %v per hour; the comparison is meant to show herding moving", gate)
	}
}

// Every backend gets players, whatever the seed: p2c samples, it does not
// rank, so no backend is starved by the others being slightly better.
func TestP2CStarvesNoBackendOver1000Seeds(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 1000; seed++ {
		o := world()
		o.Strategy = strategy.P2C
		o.Capacity = map[string]int{"a": 400, "b": 300, "c": 200, "d": 100}
		o.Count, o.Seed, o.Replicas = 40, seed, 1+int(seed%4)
		r, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range r.Backends {
			if b.Players == 0 {
				t.Fatalf("seed %d, %d replicas: backend %s got none of 40 players: %+v", seed, o.Replicas, b.Addr, r.Backends)
			}
		}
	}
}

// A backend added by a reload gets its first player soon, at every seed:
// p99 over 200 seeds within 60 connections, one player a second.
func TestP2CNewBackendFirstPlayerP99(t *testing.T) {
	t.Parallel()
	for _, replicas := range []int{1, 4} {
		var firsts []int
		for seed := uint64(1); seed <= 200; seed++ {
			o := world()
			o.Strategy = strategy.P2C
			o.Backends, o.Capacity = []string{"a", "b", "c", "d", "e"}, each([]string{"a", "b", "c", "d", "e"}, 200)
			o.Events = []Event{{At: time.Minute, Kind: EventAdd, Backend: "e"}}
			o.Count, o.Seed, o.Replicas = 160, seed, replicas
			r, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			f := *r.Metrics.FirstPlayerAfter
			if f < 0 {
				f = 1 << 20
			}
			firsts = append(firsts, f)
		}
		slices.Sort(firsts)
		if p99 := firsts[len(firsts)*99/100-1]; p99 > 60 {
			t.Errorf("%d replicas: p99 connections until the new backend's first player %d, want at most 60", replicas, p99)
		}
	}
}

// The comparison of every strategy on every scenario is pinned: it is
// what docs/lite/strategies.md reports.
func TestScenariosGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	for i, name := range ScenarioNames() {
		r := scenarioRun(t, name, DefaultSeed)
		if i > 0 {
			buf.WriteString("\n")
		}
		if err := r.WriteTable(&buf); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "scenarios.golden", buf.Bytes())
}

func TestScenarioSameSeedSameBytes(t *testing.T) {
	render := func() []byte {
		r, err := RunScenario("burst", ScenarioOptions{Seed: 9, Count: 200})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.WriteTable(&buf); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if a, b := render(), render(); !bytes.Equal(a, b) {
		t.Fatal("two runs of a scenario with one seed differ")
	}
}

func TestUnknownScenario(t *testing.T) {
	if _, err := RunScenario("equals", ScenarioOptions{}); !errors.Is(err, ErrUnknownScenario) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("RunScenario error = %v, want ErrUnknownScenario", err)
	}
}
