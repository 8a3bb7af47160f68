package lite_test

import (
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// churnRun is one run of the churn scenario: what it measured.
type churnRun struct {
	served, failed int64
	maxFair        float64
	counts         []int64 // live sessions per listed backend at the end
	// reloads is the run's schedule, for the simulator to replay: each
	// reload's time since the first player and the backends listed after it.
	reloads []churnReload
	players int
}

// churnPool backends take part in the churn scenario; churnFirst lists the
// ones in the route before the first reload.
const churnPool = 8

func churnFirst() []int { return []int{0, 1, 2, 3, 4, 5} }

// churnRamp is the scenario's slowStart: the default scaled to its time, or
// off (0 in the config, negative in the strategy's tuning).
func churnRamp(off bool) time.Duration {
	if off {
		return 0
	}
	return strategy.DefaultSlowStart / 10
}

type churnReload struct {
	at     time.Duration
	listed []int
}

// Issue 32, item 1, scaled by 1/10 in time: backends added and removed by a
// reload every 200-500 ms while 100 logins/s arrive for 5 s and each session
// lasts 1-6 s. Slow start is scaled with the rest of the world: 6 s, the default
// 60 s at 1/10 (unscaled, it held every added backend at its 10% floor for a run
// that stands for 50 s). On main p2c herded: a ramping backend swapped to the
// front of an order was never charged its credit, so one kept every login its
// peers had no credit for (max/fair 4.24 in the run). Without the ramp
// every strategy holds the 1.25; with it, backends listed in the last
// seconds hold less than their share by design, which the figure counts (see
// TestChurnAtTheIssuesScale for the unscaled world over sixteen schedules). The
// simulator replays each run's reloads and must agree with the sockets (issue
// 32, item 5).
func TestChurnDoesNotHerdOntoOneBackend(t *testing.T) {
	for _, tc := range []struct {
		name strategy.Name
		// noRamp turns slow start off: young backends then fill as fast as
		// the strategy sends players, which shows what the ramp costs.
		noRamp bool
	}{{strategy.P2C, false}, {strategy.P2C, true}, {strategy.LeastConnections, false}, {strategy.LeastLoaded, false}} {
		label := string(tc.name)
		if tc.noRamp {
			label += "/slowStart off"
		}
		t.Run(label, func(t *testing.T) {
			r := runChurn(t, tc.name, 32, tc.noRamp)
			t.Logf("%s: %d served, %d failed; live sessions on the listed backends %v: max/fair %.2f",
				label, r.served, r.failed, r.counts, r.maxFair)
			if r.failed > 0 {
				t.Errorf("%d logins failed under churn, want 0", r.failed)
			}
			simCounts := churnSimulated(t, tc.name, 32, r, tc.noRamp)
			sim := maxFair(simCounts, nil)
			keep := settled(r, 5*time.Second)
			t.Logf("%s simulated: live %v, max/fair %.2f (sockets %.2f); over the backends listed for 1 s or more: %.2f simulated, %.2f sockets",
				label, simCounts, sim, r.maxFair, maxFair(simCounts, keep), maxFair(r.counts, keep))
			// The target is 1.25; the bound leaves room for -race on a
			// busy 2-core machine. With the ramp, the backends listed in the
			// last seconds hold less than their share by design (measured 1.14-1.38,
			// least-connections 1.24-1.26, p2c 1.30-1.38): the bound there only
			// says that nothing herds (p2c's 4.24 in the issue).
			switch {
			case tc.noRamp && r.maxFair > 1.35:
				t.Errorf("max/fair %.2f under churn with slow start off, want at most 1.25 (1.35 with slack)", r.maxFair)
			case r.maxFair > 1.6:
				t.Errorf("max/fair %.2f under churn: a backend herds", r.maxFair)
			}
			// Replaying the same reloads, the two measured 0-8% apart over nine
			// runs (the target is 10%); the bound leaves room for -race
			// on a busy 2-core machine.
			if d := sim - r.maxFair; d > 0.15*r.maxFair || d < -0.15*r.maxFair {
				t.Errorf("the simulator's max/fair %.2f and the sockets' %.2f are more than 15%% apart", sim, r.maxFair)
			}
		})
	}
}

func runChurn(t *testing.T, name strategy.Name, seed uint64, noRamp bool) churnRun {
	rng := rand.New(rand.NewPCG(seed, 1))
	pool := make([]*loadServer, churnPool)
	for i := range pool {
		pool[i] = newLoadServer(t, 1000, "Lobby")
	}
	listed := churnFirst()
	cfg := func() string {
		var as []string
		for _, i := range listed {
			as = append(as, pool[i].addr)
		}
		return oneRoute("*", as...).with("strategy: "+string(name), "slowStart: "+churnRamp(noRamp).String()).
			withLite("healthCheck: {interval: 100ms, timeout: 90ms}").String()
	}
	p := startProxy(t, cfg(), proxyOpts{seed: seed})
	var served, failed atomic.Int64
	var wg sync.WaitGroup
	var r churnRun
	start := time.Now()
	stop := start.Add(5 * time.Second)
	nextReload := start.Add(churnGap(rng))
	for tick := time.NewTicker(10 * time.Millisecond); time.Now().Before(stop); <-tick.C {
		if time.Now().After(nextReload) {
			listed = churnStep(rng, listed, len(pool))
			if err := p.reload(cfg()); err != nil {
				t.Fatalf("reload: %v", err)
			}
			r.reloads = append(r.reloads, churnReload{at: time.Since(start), listed: listed})
			nextReload = time.Now().Add(churnGap(rng))
		}
		hold := time.Second + time.Duration(rng.Int64N(int64(5*time.Second)))
		wg.Go(func() { churnSession(p.addr, hold, &served, &failed) })
		r.players++
	}
	// Measure while the last sessions still run: the placement the issue reads.
	r.counts = make([]int64, 0, len(listed))
	for _, i := range listed {
		r.counts = append(r.counts, pool[i].Active())
	}
	r.maxFair = maxFair(r.counts, nil)
	wg.Wait()
	r.served, r.failed = served.Load(), failed.Load()
	return r
}

// churnGap is the time to the next reload: 200-500 ms.
func churnGap(rng *rand.Rand) time.Duration {
	return 200*time.Millisecond + time.Duration(rng.Int64N(int64(300*time.Millisecond)))
}

// churnStep removes a listed backend or adds an unlisted one, keeping 4-8 listed.
func churnStep(rng *rand.Rand, listed []int, pool int) []int {
	if len(listed) > 4 && (len(listed) == pool || rng.IntN(2) == 0) {
		k := rng.IntN(len(listed))
		return slices.Delete(slices.Clone(listed), k, k+1)
	}
	for {
		i := rng.IntN(pool)
		if !slices.Contains(listed, i) {
			return append(slices.Clone(listed), i)
		}
	}
}

// churnSession is one player: logs in, stays for hold (the session's length,
// not synchronisation), leaves.
func churnSession(addr string, hold time.Duration, served, failed *atomic.Int64) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		failed.Add(1)
		return
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	mc := mctest.NewClient(c)
	if err := joinEcho(mc, "churn.example.com", fmt.Sprintf("c%d", served.Load())); err != nil {
		failed.Add(1)
		return
	}
	served.Add(1)
	time.Sleep(hold)
}

// churnSimulated replays run's schedule in the simulator: the same eight
// backends, six listed at first, the same reloads at the same times, as many
// players 10 ms apart, sessions of 1.75-5.25 s (the sockets' 1-6 s have the same
// mean), health checks every 100 ms. It returns the sessions live on each listed
// backend when the last player arrives, as the sockets measure them.
func churnSimulated(t *testing.T, name strategy.Name, seed uint64, run churnRun, noRamp bool) []int64 {
	t.Helper()
	pool := make([]string, churnPool)
	for i := range pool {
		pool[i] = string(rune('a' + i))
	}
	listed := churnFirst()
	caps := map[string]int{}
	for _, b := range pool {
		caps[b] = 1000
	}
	var events []plan.Event // g and h start outside the route: their first event adds them
	for _, rl := range run.reloads {
		for _, i := range rl.listed {
			if !slices.Contains(listed, i) {
				events = append(events, plan.Event{At: rl.at, Kind: plan.EventAdd, Backend: pool[i]})
			}
		}
		for _, i := range listed {
			if !slices.Contains(rl.listed, i) {
				events = append(events, plan.Event{At: rl.at, Kind: plan.EventRemove, Backend: pool[i]})
			}
		}
		listed = rl.listed
	}
	tuning := strategy.P2CConfig{SlowStart: churnRamp(noRamp)}
	if noRamp {
		tuning.SlowStart = -1
	}
	r, err := plan.Run(plan.Options{Strategy: name, Backends: pool, Count: run.players, Seed: seed, P2C: tuning,
		Arrival: 10 * time.Millisecond, Session: 3500 * time.Millisecond, Capacity: caps,
		HealthInterval: 100 * time.Millisecond, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int64, 0, len(listed))
	for _, i := range listed {
		counts = append(counts, int64(r.Backends[i].Live))
	}
	return counts
}

// maxFair is the most sessions on one backend over the mean, among the
// backends keep says (all when keep is nil).
func maxFair(counts []int64, keep []bool) float64 {
	var total, most, n int64
	for i, c := range counts {
		if keep == nil || keep[i] {
			total += c
			most = max(most, c)
			n++
		}
	}
	if total == 0 {
		return 0
	}
	return float64(most) * float64(n) / float64(total)
}

// settled says, for each backend listed at the end of run, whether it was listed
// for the last second at least: one the reloads added later has had no time to
// fill (by slow start, or simply by arriving late), and counting it spreads the
// fair share over backends that cannot hold it yet.
func settled(run churnRun, end time.Duration) []bool {
	listed := churnFirst()
	since := map[int]time.Duration{}
	for _, rl := range run.reloads {
		for _, i := range rl.listed {
			if !slices.Contains(listed, i) {
				since[i] = rl.at
			}
		}
		listed = rl.listed
	}
	out := make([]bool, len(listed))
	for k, i := range listed {
		out[k] = end-since[i] >= time.Second
	}
	return out
}
