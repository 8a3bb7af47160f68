package lite_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// The world of TestTwoRampingBackendsKeepToTheirShare: four settled backends,
// then reloads add a fifth and, 3 s later, a sixth, while a player arrives
// every rampGap and stays. Windows of rampWindow logins are 2 s.
const (
	rampGap     = 20 * time.Millisecond
	rampLogins  = 600
	rampWindow  = 100
	rampFirstAt = 200 // the login before which the fifth backend is added
	rampNextAt  = 350 // and the sixth
)

// Issue 32, item 8: two backends ramping at once. On main a ramping backend
// swapped to the front of an order was never charged its credit: one took 92-97%
// of the logins for whole 2-5 s intervals against a 3-10% cap, and two added 3 s
// apart took 48-50% each for 20 s while the settled ones got none. Now, over
// this 12 s world, each ramping backend gets at most its ramp (slowStart's
// default 60 s, from 10%) times its share of the pool in every 2 s window (three
// logins of slack: the credit it starts with and the two a lull may save). The
// simulator, given the same world, must agree with the sockets on what the two
// got.
func TestTwoRampingBackendsKeepToTheirShare(t *testing.T) {
	for _, name := range []strategy.Name{strategy.LeastConnections, strategy.P2C} {
		t.Run(string(name), func(t *testing.T) {
			t.Parallel()
			got, allowed := rampOnSockets(t, name)
			sim := rampSimulated(t, name)
			for w := range got {
				t.Logf("%s window %d: logins per backend %v (simulated %v), the ramping ones allowed %.1f and %.1f",
					name, w, got[w], sim[w], allowed[w][4], allowed[w][5])
				for k := 4; k < 6; k++ {
					if float64(got[w][k]) > allowed[w][k]+3 {
						t.Errorf("window %d: ramping backend %d took %d of %d logins, want at most its ramp share %.1f (+3)",
							w, k, got[w][k], rampWindow, allowed[w][k])
					}
				}
			}
			for k := 4; k < 6; k++ {
				var s, m int
				for w := range got {
					s += got[w][k]
					m += sim[w][k]
				}
				t.Logf("%s: ramping backend %d took %d logins on sockets, %d simulated", name, k, s, m)
				if d := s - m; d*10 > s+20 || -d*10 > s+20 {
					t.Errorf("ramping backend %d: %d logins on sockets, %d simulated; want within 10%% (+2)", k, s, m)
				}
			}
		})
	}
}

// rampOnSockets runs the world through a proxy: the logins each backend got in
// each window, and what each ramping backend was allowed in it.
func rampOnSockets(t *testing.T, name strategy.Name) (got [][6]int, allowed [][6]float64) {
	pool := make([]*loadServer, 6)
	for i := range pool {
		pool[i] = newLoadServer(t, 1000, "Lobby")
	}
	p := startProxy(t, routeConfig(name, 100*time.Millisecond, addrs(pool[:4]...)...))
	if name == strategy.P2C {
		waitReports(t, p, 4) // p2c reads load; least-connections only counts
	}
	var conns []net.Conn // the players stay until the test ends
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	var added [6]time.Time
	listed := 4
	before := make([]int64, 6)
	var window [6]float64
	tick := time.NewTicker(rampGap)
	defer tick.Stop()
	for i := range rampLogins {
		if i == rampFirstAt || i == rampNextAt {
			listed++
			if err := p.reload(routeConfig(name, 100*time.Millisecond, addrs(pool[:listed]...)...)); err != nil {
				t.Fatalf("reload: %v", err)
			}
			added[listed-1] = time.Now()
		}
		<-tick.C
		for k := 4; k < listed; k++ {
			window[k] += rampShare(time.Since(added[k]), listed)
		}
		c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
		if err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
		conns = append(conns, c)
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if err := joinEcho(mctest.NewClient(c), "ramp.example.com", fmt.Sprintf("r%d", i)); err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
		if (i+1)%rampWindow == 0 {
			var w [6]int
			for k, s := range pool {
				n := s.Logins()
				w[k] = int(n - before[k])
				before[k] = n
			}
			got = append(got, w)
			allowed = append(allowed, window)
			window = [6]float64{}
		}
	}
	return got, allowed
}

// rampShare is one login order's credit for a backend ramping for warm among
// listed backends of equal capacity: its ramp weight times its share.
func rampShare(warm time.Duration, listed int) float64 {
	w := strategy.SlowStartFloor + (1-strategy.SlowStartFloor)*warm.Seconds()/strategy.DefaultSlowStart.Seconds()
	return min(w, 1) / float64(listed)
}

// rampSimulated runs the same world in the simulator: the logins each backend
// got in each window.
func rampSimulated(t *testing.T, name strategy.Name) [][6]int {
	t.Helper()
	bs := []string{"a", "b", "c", "d", "e", "f"}
	caps := map[string]int{}
	for _, b := range bs {
		caps[b] = 1000
	}
	// Ten windows, the simulator's timeline; the sockets run the first ones.
	r, err := plan.Run(plan.Options{Strategy: name, Backends: bs, Count: 10 * rampWindow, Seed: 1,
		Arrival: rampGap, Session: time.Hour, Capacity: caps, HealthInterval: 100 * time.Millisecond,
		Events: []plan.Event{
			{At: rampFirstAt * rampGap, Kind: plan.EventAdd, Backend: "e"},
			{At: rampNextAt * rampGap, Kind: plan.EventAdd, Backend: "f"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	var out [][6]int
	for _, b := range r.Timeline {
		var w [6]int
		copy(w[:], b.Players)
		out = append(out, w)
	}
	return out
}
