package plan

import (
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// runs runs a scenario for the named strategies (all when none is named) and
// indexes its runs by strategy.
func runs(t *testing.T, name string, seed uint64, names ...strategy.Name) map[strategy.Name]StrategyRun {
	t.Helper()
	r := scenarioRun(t, name, seed, names...)
	out := map[strategy.Name]StrategyRun{}
	for _, run := range r.Runs {
		out[run.Strategy] = run
	}
	return out
}

var seeds = []uint64{42, 7, 1}

func TestSpikyEqualTargets(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		r := runs(t, "spiky-equal", seed)
		ll := r[strategy.LowestLatency].Metrics
		if f := ll.FlapsPerHour; f == nil || *f > 0.5 {
			t.Errorf("seed %d: lowest-latency flaps %v an hour, want at most 0.5", seed, f)
		}
		for name, run := range r {
			if name != strategy.Sequential && run.Metrics.MinShare < 25 {
				t.Errorf("seed %d: %s gives one backend %.1f%% of the players, want at least 25%%", seed, name, run.Metrics.MinShare)
			}
			if g := run.Metrics.ProbeGap; name != strategy.Sequential && g != nil && time.Duration(*g) > 12*time.Second {
				t.Errorf("seed %d: %s left a backend unprobed for %v, want about the 10s interval", seed, name, *g)
			}
		}
	}
}

func TestUnluckyFirstProbeLocksNobodyOut(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		for name, run := range runs(t, "unlucky-first-probe", seed) {
			if name != strategy.Sequential && name != GateLowestLatency && run.Metrics.MinShare < 25 {
				t.Errorf("seed %d: %s gives one backend %.1f%% of 150 players, want at least 25%%", seed, name, run.Metrics.MinShare)
			}
		}
	}
}

func TestFasterForRealIsAdoptedWithinTwoMinutes(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		m := runs(t, "faster-for-real", seed, strategy.LowestLatency)[strategy.LowestLatency].Metrics
		if a := m.AdoptedAfter; a == nil || *a < 0 || time.Duration(*a) > 2*time.Minute {
			t.Errorf("seed %d: the faster backend was adopted after %v, want within 2m", seed, a)
		}
	}
}

func TestSlowServerIsShed(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		r := runs(t, "slow-server", seed, strategy.LowestLatency, strategy.P2C)
		for _, name := range []strategy.Name{strategy.LowestLatency, strategy.P2C} {
			if s := r[name].Metrics.ShedAfter; s == nil || *s < 0 || time.Duration(*s) > 2*time.Minute {
				t.Errorf("seed %d: %s shed the slow server after %v, want within 2m", seed, name, s)
			}
		}
	}
}

func TestBigAndSmallCapacitySplit(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		r := runs(t, "big-and-small", seed, strategy.P2C, strategy.LeastLoaded, strategy.WeightedRandom)
		for _, name := range []strategy.Name{strategy.P2C, strategy.LeastLoaded, strategy.WeightedRandom} {
			if got := r[name].Metrics.MaxOverFair; got > 1.15 {
				t.Errorf("seed %d: %s max/fair %.2f, want at most 1.15 (players %v)", seed, name, got, r[name].Players)
			}
		}
	}
}

func TestZeroReporterWith16Replicas(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		r := runs(t, "zero-reporter-16", seed, strategy.LeastConnections, strategy.P2C, strategy.WeightedRandom)
		lc := r[strategy.LeastConnections].TurnedAway
		// least-loaded is left out: ranking instead of sampling, its
		// replicas herd between two reports (docs/lite/strategies.md).
		for _, name := range []strategy.Name{strategy.P2C, strategy.WeightedRandom} {
			if got := r[name].TurnedAway; got > lc {
				t.Errorf("seed %d: %s turned away %d players, more than least-connections' %d", seed, name, got, lc)
			}
		}
	}
}
