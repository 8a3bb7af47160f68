package lite_test

import (
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// stormWaits is storm that returns each player's time to join (-1: not served).
func stormWaits(addr string, rate int, d time.Duration) []time.Duration {
	var wg sync.WaitGroup
	n := rate * int(d/time.Millisecond) / 1000
	took := make([]time.Duration, n)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for i := range n {
		<-tick.C // pacing the load, not synchronisation
		wg.Go(func() {
			start := time.Now()
			took[i] = -1
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if joinEcho(mctest.NewClient(c), "storm.example.com", fmt.Sprintf("p%d", i)) == nil {
				took[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	return took
}

// Issue 32, item 2: one of four 300ms-slow backends starts to accept logins and
// never answer as a storm begins. A login already waiting on it used to wait out
// its whole first-response time (2 s here): at 300 logins a second, 26-117 of 300
// players waited more than 1 s (least-loaded, lowest-latency, p2c). Now a waiting
// login gives up once the fleet shows the backend has fallen behind its own pace
// (Manager.OnStall): 0 of 300, two runs each. Always: 100 logins a second, and no
// player waits out the whole first-response time; GATETEST_LONG=1: 300 a second,
// and at most 3 players wait more than 1 s.
func TestDarkeningBackendDuringAStormKeepsFewWaiting(t *testing.T) {
	rate, limit := 100, 1900*time.Millisecond
	if os.Getenv("GATETEST_LONG") != "" {
		rate, limit = 300, time.Second
	}
	for _, name := range []strategy.Name{strategy.LeastLoaded, strategy.LowestLatency, strategy.P2C} {
		t.Run(string(name), func(t *testing.T) {
			slow, failed, attempts := darkStorm(t, name, rate, limit)
			t.Logf("%s: %d of %d players waited more than %v, %d not served; %d attempts on the dark backend",
				name, slow, rate, limit, failed, attempts)
			if slow > 3 || failed > 0 {
				t.Errorf("%d players waited more than %v and %d were not served, want at most 3 and none", slow, limit, failed)
			}
			sim := darkStormSimulated(t, name, rate, limit)
			t.Logf("%s simulated: %d waited more than %v, %d not served; %d attempts on the dark backend",
				name, sim.Slow, limit, sim.Errors, sim.Wasted)
			if diff(slow, sim.Slow) > rate/10 || diff(failed, sim.Errors) > rate/10 {
				t.Errorf("the simulator has %d slow and %d not served, the sockets %d and %d: more than 10%% of %d apart",
					sim.Slow, sim.Errors, slow, failed, rate)
			}
		})
	}
}

// darkStorm runs a storm of rate logins for 1 s over four 300ms-slow backends, one
// of which goes dark as it begins: the players who waited longer than limit, those
// not served, and the attempts the dark backend got.
func darkStorm(t *testing.T, name strategy.Name, rate int, limit time.Duration) (slow, failed int, attempts int64) {
	p, dark := darkening(t, name, false)
	before := dark.Logins()
	for _, d := range stormWaits(p.addr, rate, time.Second) {
		switch {
		case d < 0:
			failed++
		case d > limit:
			slow++
		}
	}
	return slow, failed, dark.Logins() - before
}

// darkStormSimulated is darkStorm in the simulator: the same four 300ms-slow
// backends, health checks and first-response time as stormConfig sets, the first
// one starting to accept and never answer as the storm of rate logins begins.
func darkStormSimulated(t *testing.T, name strategy.Name, rate int, limit time.Duration) plan.FaultResult {
	t.Helper()
	r, err := plan.RunFaults(plan.FaultOptions{Strategy: name, Fault: plan.FaultHang, Rate: float64(rate),
		Duration: 31 * time.Second, Seed: 22, Service: 300 * time.Millisecond, WarmRate: 4,
		StormAt: 30 * time.Second, FaultAt: 30 * time.Second, FirstResponse: 2 * time.Second, DialTimeout: time.Second,
		Live: 3, SlowAfter: limit,
		Health: strategy.HealthCheck{Enabled: true, Interval: 300 * time.Millisecond, Timeout: 250 * time.Millisecond, Rise: 2, Fall: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
