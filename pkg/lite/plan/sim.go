package plan

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// routeKey names the one simulated route.
const routeKey = "plan"

// epoch is the virtual clock's start; fixed so output never depends on
// when a plan runs.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var errDialTimeout = errors.New("simulated dial timeout")

// clock is the virtual clock; the simulation is single-threaded.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// sim is one run: the manager under test plus the simulated backends.
type sim struct {
	o      Options
	clk    *clock
	rng    *rand.Rand
	m      *strategy.Manager
	idx    map[string]int
	dead   []bool
	active []int
	ends   sessionHeap
	res    *Result
}

// Run simulates o and returns where the players went.
func Run(o Options) (*Result, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	s := newSim(o)
	ctx := context.Background()
	s.m.ProbeDue(ctx)
	for i := range o.Count {
		t := epoch.Add(time.Duration(i) * o.Arrival)
		s.endSessions(t)
		s.clk.t = t
		s.m.ProbeDue(ctx)
		s.connect(i, t)
	}
	s.finish()
	return s.res, nil
}

func newSim(o Options) *sim {
	s := &sim{
		o:      o,
		clk:    &clock{t: epoch},
		rng:    rand.New(rand.NewPCG(o.Seed, 0x706c616e)),
		idx:    map[string]int{},
		dead:   make([]bool, len(o.Backends)),
		active: make([]int, len(o.Backends)),
	}
	s.res = &Result{Strategy: o.Strategy, Seed: o.Seed, Count: o.Count,
		Arrival: Duration(o.Arrival), Session: Duration(o.Session)}
	for i, addr := range o.Backends {
		s.idx[addr] = i
		s.res.Backends = append(s.res.Backends, BackendResult{
			Addr: addr, Latency: Duration(s.latency(addr)), Capacity: o.Capacity[addr]})
	}
	for _, addr := range o.Fail {
		s.dead[s.idx[addr]] = true
		s.res.Backends[s.idx[addr]].Dead = true
	}
	s.res.Timeline = buckets(o.Count, len(o.Backends))
	s.m = strategy.NewManager(strategy.Options{Seed: o.Seed, Now: s.clk.Now, Prober: s})
	s.m.SetRoutes([]strategy.Route{{Key: routeKey, Strategy: o.Strategy, Backends: o.Backends, Health: o.Health}})
	return s
}

func (s *sim) latency(addr string) time.Duration {
	if d, ok := s.o.Latency[addr]; ok && d > 0 {
		return d
	}
	return DefaultLatency
}

// sample is one measured round trip: the latency plus uniform noise.
// Integer arithmetic keeps plans identical on every platform.
func (s *sim) sample(k int) time.Duration {
	lat := s.latency(s.o.Backends[k])
	span := int64(lat) * int64(s.o.Noise) / 100
	if span == 0 {
		return lat
	}
	return lat + time.Duration(s.rng.Int64N(2*span+1)-span)
}

// Probe answers the manager's probes as the simulated backend would.
func (s *sim) Probe(_ context.Context, addr string) (strategy.Report, error) {
	k, ok := s.idx[addr]
	if !ok {
		return strategy.Report{}, fmt.Errorf("probe %s: not a simulated backend", addr)
	}
	s.res.Backends[k].Probes++
	if s.dead[k] {
		return strategy.Report{}, fmt.Errorf("probe %s: %w", addr, errDialTimeout)
	}
	return strategy.Report{RTT: s.sample(k), Online: s.active[k], Max: s.o.Capacity[addr], HasPlayers: true}, nil
}

// connect places player i, arriving at t, the way the proxy would: dial
// down the manager's order, reserving before each dial.
func (s *sim) connect(i int, t time.Time) {
	bucket := &s.res.Timeline[i*len(s.res.Timeline)/s.o.Count]
	for _, addr := range s.m.Order(routeKey, s.o.Backends, strategy.IntentLogin) {
		k, b := s.idx[addr], &s.res.Backends[s.idx[addr]]
		lease := s.m.Reserve(addr)
		if s.dead[k] {
			s.m.ObserveDial(addr, s.o.DialTimeout, errDialTimeout)
			lease.Release()
			b.FailedDials++
			s.res.FailedDials++
			s.res.FailedDialTime += Duration(s.o.DialTimeout)
			continue
		}
		s.m.ObserveDial(addr, s.sample(k), nil)
		if c := s.o.Capacity[addr]; c > 0 && s.active[k] >= c {
			// The backend kicks the player at login; Lite does not see it.
			lease.Release()
			b.TurnedAway++
			s.res.TurnedAway++
			return
		}
		s.active[k]++
		b.Players++
		b.Peak = max(b.Peak, s.active[k])
		bucket.Players[k]++
		s.res.Placed++
		length := s.o.Session/2 + time.Duration(s.rng.Int64N(int64(s.o.Session)+1))
		heap.Push(&s.ends, session{end: t.Add(length), seq: i, k: k, lease: lease})
		return
	}
	s.res.Unplaced++
}

// endSessions releases every session that ended by t, in end order.
func (s *sim) endSessions(t time.Time) {
	for len(s.ends) > 0 && !s.ends[0].end.After(t) {
		e := heap.Pop(&s.ends).(session)
		s.clk.t = e.end
		e.lease.Release()
		s.active[e.k]--
	}
}

// finish fills the shares, the imbalance and the manager's final view.
func (s *sim) finish() {
	live, most := 0, 0
	for k := range s.res.Backends {
		b := &s.res.Backends[k]
		if s.res.Placed > 0 {
			b.Share = float64(b.Players*1000/s.res.Placed) / 10
		}
		if !s.dead[k] {
			live++
			most = max(most, b.Players)
		}
	}
	if s.res.Placed > 0 && live > 0 {
		s.res.Imbalance = float64(most*live*100/s.res.Placed) / 100
	}
	for _, st := range s.m.Snapshot() {
		b := &s.res.Backends[s.idx[st.Addr]]
		b.Health = st.Health
		if st.HasLatency {
			b.Measured = Duration(st.Latency)
		}
	}
}

// buckets splits count connections into up to ten spans.
func buckets(count, backends int) []Bucket {
	n := min(10, count)
	out := make([]Bucket, n)
	for j := range out {
		out[j] = Bucket{From: j*count/n + 1, To: (j + 1) * count / n, Players: make([]int, backends)}
	}
	return out
}

// session is a simulated player on backend k until end.
type session struct {
	end   time.Time
	seq   int
	k     int
	lease *strategy.Lease
}

// sessionHeap orders sessions by end time, then arrival, so that equal
// end times release in a fixed order.
type sessionHeap []session

func (h sessionHeap) Len() int { return len(h) }
func (h sessionHeap) Less(i, j int) bool {
	if !h[i].end.Equal(h[j].end) {
		return h[i].end.Before(h[j].end)
	}
	return h[i].seq < h[j].seq
}
func (h sessionHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sessionHeap) Push(x any)   { *h = append(*h, x.(session)) }
func (h *sessionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
