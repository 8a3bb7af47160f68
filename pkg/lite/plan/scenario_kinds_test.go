package plan

import (
	"testing"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 22, defect 3: the backend that got the logins ranked on their
// fast first bytes and an identical one never won again (0 of 120).
func TestIdenticalPairSharesUnderLowestLatency(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		m := runs(t, "identical-pair", seed, strategy.LowestLatency)[strategy.LowestLatency].Metrics
		if m.MinShare < 40 {
			t.Errorf("seed %d: one identical backend got %.1f%% of 120 players, want 40-60%%", seed, m.MinShare)
		}
	}
}

// Issue 22, defect 4: 30% of b's logins at 400ms; the median hid it.
func TestBimodalLoginBackendGetsAtMost15Percent(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		m := runs(t, "bimodal-login", seed, strategy.LowestLatency)[strategy.LowestLatency].Metrics
		if m.MinShare > 15 || m.MinShare == 0 {
			t.Errorf("seed %d: the bimodal backend got %.1f%% of the players, want 0-15%% (and back after its tail decays)", seed, m.MinShare)
		}
	}
}

// The bimodal backend pays and earns its place back over the tail's decay:
// ten minutes at a login a second, 30% of b's logins at 400ms.
func TestBimodalLoginBackendEarnsItBack(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		o := world()
		o.Backends, o.Capacity, o.Count, o.Seed = []string{"a", "b"}, each([]string{"a", "b"}, 1000), 600, seed
		o.Strategy, o.World.SlowLogins = strategy.LowestLatency, map[string]int{"b": 30}
		r, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if s := r.Backends[1].Share; s > 15 || s < 1 {
			t.Errorf("seed %d: the bimodal backend got %.1f%% of 600 players at one a second, want 1-15%% (back after each decay)", seed, s)
		}
	}
}

// Issue 22, defect 4: spiky noise with a probe and a login every second
// flapped 0.7-1.6 times an hour.
func TestSpikyBusyFlapsAtMostHalfPerHour(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		m := runs(t, "spiky-busy", seed, strategy.LowestLatency)[strategy.LowestLatency].Metrics
		if f := m.FlapsPerHour; f == nil || *f > 0.5 {
			t.Errorf("seed %d: lowest-latency flaps %v an hour, want at most 0.5", seed, f)
		}
	}
}

// Issue 22, defects 1 and 7: a storm against slow servers while one is
// dark costs the dark one at most 3 attempts, for every strategy; the
// sockets' test (pkg/edition/java/lite, TestLoginStormSparesTheDeadBackend)
// runs the same world.
func TestStormSparesTheDarkBackend(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{42, 7} {
		rs, err := StormRuns(seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.WastedPerReplica > strategy.EjectFailures || r.Errors != 0 {
				t.Errorf("seed %d, %s: %d attempts on the dark backend, %d players unserved; want at most %d and none",
					seed, r.Strategy, r.WastedPerReplica, r.Errors, strategy.EjectFailures)
			}
		}
	}
}
