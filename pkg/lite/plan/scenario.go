package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// Scenario is a named simulated world that every strategy is run against.
type Scenario struct {
	Name    string
	Summary string
	// Options describe the world; Strategy, Seed, Count and (when the
	// caller asks) Replicas are set per run.
	Options Options
	// Target names the figure the scenario exists for and its goal;
	// empty for the comparison scenarios.
	Target string
}

// ScenarioOptions choose how a scenario runs. Zero fields take the
// scenario's defaults: seed 42, its count and replicas, every strategy.
type ScenarioOptions struct {
	Seed       uint64
	Count      int
	Replicas   int
	Strategies []strategy.Name
}

// ErrUnknownScenario is wrapped by RunScenario for a name not in Scenarios.
var ErrUnknownScenario = fmt.Errorf("%w: unknown scenario", ErrInvalid)

// four names the backends of most scenarios.
var four = []string{"a", "b", "c", "d"}

// each gives every backend the same value.
func each[V any](backends []string, v V) map[string]V {
	m := make(map[string]V, len(backends))
	for _, b := range backends {
		m[b] = v
	}
	return m
}

// world is the base every scenario starts from: four 20 ms backends of
// 200 players, one player a second staying about ten minutes, status
// reports every 10 s (the default health interval).
func world() Options {
	return Options{
		Backends: four, Count: DefaultCount, Noise: DefaultNoise, Replicas: 1,
		Capacity: each(four, 200), Session: 10 * time.Minute, Arrival: time.Second,
	}
}

// Scenarios lists the built-in scenarios in documentation order.
func Scenarios() []Scenario {
	heteroLat := world()
	heteroLat.Latency = map[string]time.Duration{"a": 15 * time.Millisecond, "b": 20 * time.Millisecond, "c": 30 * time.Millisecond, "d": 45 * time.Millisecond}

	eight := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	burst := world()
	burst.Backends, burst.Capacity, burst.Replicas = eight, each(eight, 200), 8
	burst.Arrival, burst.Session = 20*time.Millisecond, 30*time.Minute

	added := world()
	added.Backends, added.Capacity = []string{"a", "b", "c", "d", "e"}, each([]string{"a", "b", "c", "d", "e"}, 200)
	added.Events = []Event{{At: 4 * time.Minute, Kind: EventAdd, Backend: "e"}}

	degraded := world()
	degraded.Events = []Event{{At: 3 * time.Minute, Kind: EventLatency, Backend: "b", Latency: 200 * time.Millisecond, Relative: true}}

	dead := world()
	dead.Backends = []string{"a", "b", "c", "dead", "hole"}
	dead.Capacity, dead.Replicas = each(dead.Backends, 200), 4
	dead.Refuse, dead.Fail = []string{"dead"}, []string{"hole"}

	noisy := world()
	noisy.Backends, noisy.Capacity = []string{"a", "b"}, each([]string{"a", "b"}, 200)
	noisy.Noise, noisy.Arrival, noisy.Session = 50, 15*time.Second, 5*time.Minute

	failing := world()
	failing.Backends, failing.Capacity = []string{"a", "b", "c"}, each([]string{"a", "b", "c"}, 200)
	for _, b := range failing.Backends {
		failing.Events = append(failing.Events, Event{At: 2 * time.Minute, Kind: EventFail, Backend: b})
	}

	zero := world()
	zero.ReportOnline = map[string]int{"d": 0}

	heteroCap := world()
	heteroCap.Capacity = map[string]int{"a": 100, "b": 200, "c": 300, "d": 400}

	return append([]Scenario{
		{"equal", "four equal backends (20ms, 200 players each)", world(), ""},
		{"heterogeneous-latency", "four backends at 15, 20, 30 and 45ms", heteroLat, ""},
		{"burst", "500 players in 10s onto eight backends through eight replicas; reports every 10s", burst, ""},
		{"backend-added", "a fifth backend joins by a reload after 4 minutes", added, ""},
		{"degraded", "backend b becomes 200ms slower after 3 minutes", degraded, ""},
		{"dead-and-black-holed", "five backends, one refusing connections, one timing out; four replicas", dead, ""},
		{"noisy-equal", "two equal 20ms backends with 50% latency noise for two hours", noisy, ""},
		{"all-failing", "every backend black-holed after 2 minutes", failing, ""},
		{"zero-reporter", "backend d always reports 0 players online", zero, ""},
		{"heterogeneous-capacity", "four backends of 100, 200, 300 and 400 players", heteroCap, ""},
	}, append(noiseScenarios(), kindScenarios()...)...)
}

// ScenarioNames lists the names of Scenarios.
func ScenarioNames() []string {
	var out []string
	for _, s := range Scenarios() {
		out = append(out, s.Name)
	}
	return out
}

// SimulatedStrategies are the strategies a scenario compares by default:
// the proxy's own plus the model of Gate Lite's lowest-latency.
func SimulatedStrategies() []strategy.Name {
	return append(strategy.Names(), GateLowestLatency)
}

// RunScenario runs the named scenario once per strategy.
func RunScenario(name string, so ScenarioOptions) (*ScenarioResult, error) {
	i := slices.IndexFunc(Scenarios(), func(s Scenario) bool { return s.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("%w %q (want %s)", ErrUnknownScenario, name, strings.Join(ScenarioNames(), ", "))
	}
	sc := Scenarios()[i]
	o := sc.Options
	o.Seed = or(so.Seed, DefaultSeed)
	o.Count = or(so.Count, o.Count)
	o.Replicas = or(so.Replicas, o.Replicas)
	names := so.Strategies
	if len(names) == 0 {
		names = SimulatedStrategies()
	}
	out := &ScenarioResult{Scenario: sc.Name, Summary: sc.Summary, Target: sc.Target, Setup: setupOf(o), Backends: o.Backends}
	// The strategies' runs are independent worlds: they run side by side.
	rows, err := eachParallel(names, func(n strategy.Name) (StrategyRun, error) {
		o := o
		o.Strategy = n
		r, err := Run(o)
		if err != nil {
			return StrategyRun{}, fmt.Errorf("scenario %s, strategy %s: %w", sc.Name, n, err)
		}
		return rowOf(r), nil
	})
	if err != nil {
		return nil, err
	}
	out.Runs = rows
	return out, nil
}
