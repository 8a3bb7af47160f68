package plan

import (
	"slices"
	"sync"
	"testing"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// A scenario run is deterministic for its name, seed and strategy, and several tests
// read the same ones (the golden table, the documentation check, the targets at
// seed 42): each run is simulated once per test binary, and each strategy's run is
// simulated only when a test reads it.
var scenarioRuns sync.Map // scenarioKey -> func() (StrategyRun, error)

type scenarioKey struct {
	name     string
	seed     uint64
	strategy strategy.Name
}

// scenarioRun is RunScenario(name, seed) narrowed to the named strategies (every
// simulated strategy when none is named), memoised per strategy.
func scenarioRun(t *testing.T, name string, seed uint64, names ...strategy.Name) *ScenarioResult {
	t.Helper()
	if len(names) == 0 {
		names = SimulatedStrategies()
	}
	var out *ScenarioResult
	for _, n := range names {
		key := scenarioKey{name, seed, n}
		f, _ := scenarioRuns.LoadOrStore(key, sync.OnceValues(func() (*ScenarioResult, error) {
			return RunScenario(name, ScenarioOptions{Seed: seed, Strategies: []strategy.Name{n}})
		}))
		r, err := f.(func() (*ScenarioResult, error))()
		if err != nil {
			t.Fatal(err)
		}
		if out == nil {
			head := *r
			head.Runs = nil
			out = &head
		}
		out.Runs = append(out.Runs, r.Runs[0])
	}
	// The result holds its runs in the order asked for, as RunScenario does.
	if !slices.EqualFunc(out.Runs, names, func(r StrategyRun, n strategy.Name) bool { return r.Strategy == n }) {
		t.Fatalf("memoised runs out of order: %v", out.Runs)
	}
	return out
}
