package lite_test

import (
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
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
// never answer as a storm of 300 logins a second begins. Players who wait more
// than 1 s are those whose login tried it first; the target is at most 3.
// Figures only: not met yet (see the report of issue 32). For 300 ms the dark
// backend looks like the others (none has answered), and it stalls only once the
// fleet answers attempts reserved well after its oldest; a login already waiting
// on it waits out its whole first-response time. Runs with GATETEST_LONG=1 only,
// and then asserts the target.
func TestDarkeningBackendDuringAStormKeepsFewWaiting(t *testing.T) {
	if os.Getenv("GATETEST_LONG") == "" {
		t.Skip("figures of an unmet target: GATETEST_LONG=1")
	}
	for _, name := range []strategy.Name{strategy.LeastLoaded, strategy.LowestLatency, strategy.P2C} {
		t.Run(string(name), func(t *testing.T) {
			dark := newBackendWith(t, mctest.Options{LoginDelay: 300 * time.Millisecond})
			addrs := []string{dark.addr}
			for range 3 {
				addrs = append(addrs, newBackendWith(t, mctest.Options{LoginDelay: 300 * time.Millisecond}).addr)
			}
			p := startProxy(t, stormConfig(name, false, addrs...), proxyOpts{seed: 22})
			for range 8 {
				c := dialProxy(t, p.addr)
				c.login("storm.example.com")
				_ = c.Close()
			}
			dark.SetDark(true)
			before := dark.Logins()
			slow, failed := 0, 0
			for _, d := range stormWaits(p.addr, 300, time.Second) {
				switch {
				case d < 0:
					failed++
				case d > time.Second:
					slow++
				}
			}
			t.Logf("%s: %d of 300 players waited more than 1 s, %d not served; %d attempts on the dark backend",
				name, slow, failed, dark.Logins()-before)
			if slow > 3 || failed > 0 {
				t.Errorf("%d players waited more than 1 s and %d were not served, want at most 3 and none", slow, failed)
			}
		})
	}
}
