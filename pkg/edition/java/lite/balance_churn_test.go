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
	"go.minekube.com/gate/pkg/lite/strategy"
)

// churnRun is one run of the churn scenario: what it measured.
type churnRun struct {
	served, failed int64
	maxFair        float64
	counts         []int64 // live sessions per listed backend at the end
}

// Issue 32, item 1, scaled by 1/10 in time: backends added and removed by a
// reload every 200-500 ms while 100 logins/s arrive for 5 s and each session
// lasts 1-6 s. Every backend the reloads add is still ramping (slow start is
// 60 s) whenever it is measured, as under real churn. On main p2c herded: a
// ramping backend swapped to the front of an order was never charged its credit,
// so one kept every login its peers had no credit for (max/fair 4.24 in the
// issue's run). Figures are reported; the bound is loose, since placement under
// -race on a shared host is not exact.
func TestChurnDoesNotHerdOntoOneBackend(t *testing.T) {
	for _, name := range []strategy.Name{strategy.P2C, strategy.LeastConnections, strategy.LeastLoaded} {
		t.Run(string(name), func(t *testing.T) {
			r := runChurn(t, name, 32)
			t.Logf("%s: %d served, %d failed; live sessions on the listed backends %v: max/fair %.2f",
				name, r.served, r.failed, r.counts, r.maxFair)
			if r.failed > 0 {
				t.Errorf("%d logins failed under churn, want 0", r.failed)
			}
			if r.maxFair > 2 {
				t.Errorf("max/fair %.2f under churn, want near least-connections' (about 1.2)", r.maxFair)
			}
		})
	}
}

func runChurn(t *testing.T, name strategy.Name, seed uint64) churnRun {
	rng := rand.New(rand.NewPCG(seed, 1))
	pool := make([]*loadServer, 8)
	for i := range pool {
		pool[i] = newLoadServer(t, 1000, "Lobby")
	}
	listed := []int{0, 1, 2, 3, 4, 5}
	cfg := func() string {
		var as []string
		for _, i := range listed {
			as = append(as, pool[i].addr)
		}
		return routeConfig(name, 100*time.Millisecond, as...)
	}
	p := startProxy(t, cfg(), proxyOpts{seed: seed})
	var served, failed atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(5 * time.Second)
	nextReload := time.Now().Add(churnGap(rng))
	for tick := time.NewTicker(10 * time.Millisecond); time.Now().Before(stop); <-tick.C {
		if time.Now().After(nextReload) {
			listed = churnStep(rng, listed, len(pool))
			if err := p.reload(cfg()); err != nil {
				t.Fatalf("reload: %v", err)
			}
			nextReload = time.Now().Add(churnGap(rng))
		}
		hold := time.Second + time.Duration(rng.Int64N(int64(5*time.Second)))
		wg.Go(func() { churnSession(p.addr, hold, &served, &failed) })
	}
	// Measure while the last sessions still run: the placement the issue reads.
	r := churnRun{counts: make([]int64, 0, len(listed))}
	var total, most int64
	for _, i := range listed {
		n := pool[i].Active()
		r.counts = append(r.counts, n)
		total += n
		most = max(most, n)
	}
	if total > 0 {
		r.maxFair = float64(most) * float64(len(listed)) / float64(total)
	}
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
