package plan

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// The runs are deterministic: each table is computed once for every test.
var (
	faultCosts = sync.OnceValues(func() ([]FaultResult, error) { return FaultCosts(DefaultSeed) })
	flapRuns   = sync.OnceValues(func() ([]FaultResult, error) { return FlapRuns(DefaultSeed) })
)

// The targets for a dying backend: at 4, 20 and 100 logins/s with a 2s dial
// timeout, every strategy sheds it within EjectFailures player attempts, no player
// fails, and none waits longer than one timeout for it.
func TestDyingBackendCostsAtMostThreeAttemptsAtAnyRate(t *testing.T) {
	t.Parallel()
	runs, err := faultCosts()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		limit := 2*time.Second + faultLatency
		if r.Fault == FaultHang {
			limit = 3*time.Second + faultLatency
		}
		if r.WastedPerReplica > strategy.EjectFailures || r.Errors != 0 || time.Duration(r.MaxWait) > limit {
			t.Errorf("%s at %g/s, %s: %d wasted, %d errors, longest wait %v; want at most %d, none, %v",
				r.Fault, r.Rate, r.Strategy, r.WastedPerReplica, r.Errors, time.Duration(r.MaxWait), strategy.EjectFailures, limit)
		}
	}
}

// A backend flapping 10s up, 10s down for 5 minutes at 4 logins/s: no strategy wastes
// more attempts on it than random, with 1 and with 4 replicas, and no player fails.
func TestFlappingBackendCostsNoStrategyMoreThanRandom(t *testing.T) {
	t.Parallel()
	runs, err := flapRuns()
	if err != nil {
		t.Fatal(err)
	}
	random := map[int]int{}
	for _, r := range runs {
		if r.Strategy == strategy.Random {
			random[r.Replicas] = r.Wasted
		}
	}
	for _, r := range runs {
		if r.Wasted > random[r.Replicas] || r.Errors != 0 {
			t.Errorf("%s, %d replicas: %d wasted, %d errors; want at most random's %d, none",
				r.Strategy, r.Replicas, r.Wasted, r.Errors, random[r.Replicas])
		}
	}
	// Not one lucky seed: summed over ten more, too.
	sums := map[strategy.Name]map[int]int{}
	for seed := uint64(1); seed <= 10; seed++ {
		more, err := FlapRuns(seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range more {
			if sums[r.Strategy] == nil {
				sums[r.Strategy] = map[int]int{}
			}
			sums[r.Strategy][r.Replicas] += r.Wasted
		}
	}
	for name, byReplicas := range sums {
		for n, w := range byReplicas {
			if w > sums[strategy.Random][n] {
				t.Errorf("%s, %d replicas, seeds 1-10: %d wasted, random %d", name, n, w, sums[strategy.Random][n])
			}
		}
	}
}

func TestFaultTablesGolden(t *testing.T) {
	t.Parallel()
	costs, err := faultCosts()
	if err != nil {
		t.Fatal(err)
	}
	flap, err := flapRuns()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString("# attempts wasted on the faulty backend (most by one replica), seed 42\n")
	if err := WriteFaultTable(&buf, costs); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("\n")
	if err := WriteFaultTable(&buf, flap); err != nil {
		t.Fatal(err)
	}
	storm, err := StormRuns(DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	buf.WriteString("\n# issue 22's storm: 300 logins in 1s against 300ms-slow servers, one dark and marked down\n")
	if err := WriteFaultTable(&buf, storm); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "faults.golden", buf.Bytes())
}
