package strategy

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// spikyRTT draws round trips around base: σ 15ms Gaussian jitter (a sum
// of twelve uniforms) and 5% spikes of +150ms, never below 0.1ms.
func spikyRTT(r *rand.Rand, base time.Duration) time.Duration {
	var sum float64
	for range 12 {
		sum += r.Float64()
	}
	d := base + time.Duration((sum-6)*float64(15*ms))
	if r.IntN(100) < 5 {
		d += 150 * ms
	}
	return max(d, 100*time.Microsecond)
}

// probeRounds measures both backends every 10s for the given time,
// ordering a connection after each round, and returns the incumbent's
// changes and the time the incumbent last changed.
func probeRounds(m *Manager, clk *mctest.Clock, r *rand.Rand, d time.Duration, base map[string]time.Duration) (changes int, last time.Time) {
	bs := []string{"a", "b"}
	prev := incumbentOf(m)
	for range d / (10 * time.Second) {
		clk.Advance(10 * time.Second)
		for _, addr := range bs {
			measure(m, addr, spikyRTT(r, base[addr]))
		}
		m.Order("r", bs, IntentLogin)
		if inc := incumbentOf(m); inc != prev {
			changes, prev, last = changes+1, inc, clk.Now()
		}
	}
	return changes, last
}

func incumbentOf(m *Manager) string {
	d, _ := m.Decision("r")
	return d.Best
}

// The target: at most 0.5 switches an hour between equal
// backends under spiky noise, evaluated at every probe round (the most
// chances to flap), over 50 hours and three seeds.
func TestLowestLatencySpikyNoiseSwitchesAtMostHalfPerHour(t *testing.T) {
	const hours = 50
	for _, seed := range []uint64{1, 2, 3} {
		// Each seed is its own manager and clock: the seeds run side by side.
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			t.Parallel()
			m, clk := newTestManager(t, LowestLatency, "a", "b")
			r := rand.New(rand.NewPCG(seed, 14))
			base := map[string]time.Duration{"a": 20 * ms, "b": 20 * ms}
			probeRounds(m, clk, r, time.Minute, base)
			changes, _ := probeRounds(m, clk, r, hours*time.Hour, base)
			perHour := float64(changes) / hours
			t.Logf("seed %d: %d switches in %d hours (%.2f/h)", seed, changes, hours, perHour)
			if perHour > 0.5 {
				t.Errorf("seed %d: %.2f switches an hour between equal spiky backends, want at most 0.5", seed, perHour)
			}
		})
	}
}

// And it still follows a real change: b becomes 50ms faster and takes
// over within two minutes.
func TestLowestLatencyAdoptsARealChangeWithinTwoMinutes(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		m, clk := newTestManager(t, LowestLatency, "a", "b")
		r := rand.New(rand.NewPCG(seed, 50))
		base := map[string]time.Duration{"a": 70 * ms, "b": 70 * ms}
		probeRounds(m, clk, r, 10*time.Minute, base)
		if incumbentOf(m) == "b" {
			// Make a the incumbent first, so that b has to win it.
			base["a"] = 20 * ms
			probeRounds(m, clk, r, 5*time.Minute, base)
			base["a"] = 70 * ms
			probeRounds(m, clk, r, 10*time.Minute, base)
		}
		if incumbentOf(m) != "a" {
			t.Fatalf("seed %d: setup left %q the incumbent, want a", seed, incumbentOf(m))
		}
		base["b"] = 20 * ms
		start := clk.Now()
		probeRounds(m, clk, r, 5*time.Minute, base)
		d, _ := m.Decision("r")
		t.Logf("seed %d: b took over %v after it became 50ms faster", seed, d.LastSwitch.Sub(start))
		if d.Best != "b" || d.LastSwitch.Sub(start) > 2*time.Minute {
			t.Errorf("seed %d: incumbent %q switched %v after b became 50ms faster, want b within 2m",
				seed, d.Best, d.LastSwitch.Sub(start))
		}
	}
}

// One unlucky first sample does not lock a backend out: the next one
// counts at once.
func TestLowestLatencyUnluckyFirstSampleIsCorrectedAtOnce(t *testing.T) {
	bs := []string{"a", "b"}
	m, _ := newTestManager(t, LowestLatency, bs...)
	measure(m, "a", 20*ms)
	measure(m, "b", 167*ms)
	if got := firsts(m, "r", bs, 10, true); got["b"] != 0 {
		t.Fatalf("placements %v with b measured at 167ms, want none on b", got)
	}
	measure(m, "a", 21*ms)
	measure(m, "b", 19*ms)
	if got := firsts(m, "r", bs, 20, true); got["b"] < 10 {
		t.Fatalf("placements %v after b's second sample, want b to catch up with a", got)
	}
}
