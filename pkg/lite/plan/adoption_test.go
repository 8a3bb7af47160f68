package plan

import (
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// shareAfter is backend k's share (percent) of the logins of s in each window
// of w from at on, n windows.
func shareAfter(s *sim, at time.Time, w time.Duration, n, k int) []int {
	var out []int
	for i := range n {
		from, to := at.Add(time.Duration(i)*w), at.Add(time.Duration(i+1)*w)
		all, on := 0, 0
		for _, c := range s.rec.conns {
			if !c.t.Before(from) && c.t.Before(to) {
				all++
				if c.k == k {
					on++
				}
			}
		}
		out = append(out, on*100/max(all, 1))
	}
	return out
}

// Issue 32, item 6: a backend that becomes 3x faster (90 ms to 30 ms, beside a
// 40 ms one that had every login) gets half the logins within 20 s, under
// lowest-latency and p2c, with probes every second and four logins a second (the
// sockets took 40 s under lowest-latency).
func TestThreeTimesFasterBackendGetsHalfTheLoginsWithin20s(t *testing.T) {
	two := []string{"a", "b"}
	o := world()
	o.Backends, o.Capacity, o.Count = two, each(two, 1000), 400
	o.Latency = map[string]time.Duration{"a": 40 * time.Millisecond, "b": 90 * time.Millisecond}
	o.Arrival, o.HealthInterval = 250*time.Millisecond, time.Second
	const at = 60 * time.Second
	o.Events = []Event{{At: at, Kind: EventLatency, Backend: "b", Latency: 30 * time.Millisecond}}
	for _, name := range []strategy.Name{strategy.LowestLatency, strategy.P2C} {
		o := o
		o.Strategy = name
		o, err := o.normalize()
		if err != nil {
			t.Fatal(err)
		}
		s := newSim(o)
		if _, err := runSim(s); err != nil {
			t.Fatal(err)
		}
		// The 5-second windows from 15 s to 25 s after the change.
		shares := shareAfter(s, epoch.Add(at), 5*time.Second, 5, 1)
		t.Logf("%s: b's share of logins per 5 s after it became 3x faster: %v", name, shares)
		if shares[3] < 50 || shares[4] < 50 {
			t.Errorf("%s: b's share 15-25 s after it became 3x faster %v%%, want at least half", name, shares[3:])
		}
	}
}
