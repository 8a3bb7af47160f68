package plan

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// routeKey names the one simulated route.
const routeKey = "plan"

// epoch is the virtual clock's start; fixed so output never depends on
// when a plan runs.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	errDialTimeout = errors.New("simulated dial timeout")
	errRefused     = errors.New("simulated connection refused")
	errNoAnswer    = fmt.Errorf("simulated: no first answer in time: %w", strategy.ErrNoAnswer)
	errFull        = fmt.Errorf("simulated: server full: %w", strategy.ErrFull)
	errTurnedAway  = fmt.Errorf("simulated: turned away in the operator's words: %w", strategy.ErrRefused)
)

// replicaSeedStep separates the seeds of replicas; replica 0 keeps the
// plan's seed, so a one-replica plan is what it always was.
const replicaSeedStep = 0x9e3779b97f4a7c15

// clock is the virtual clock; the simulation is single-threaded.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// health of a simulated backend.
type health uint8

const (
	alive health = iota
	timingOut
	refusing
)

// replica is one simulated proxy: its own manager, nothing shared.
type replica struct {
	m *strategy.Manager
	// deadDials counts this replica's player dials to each backend while
	// it was dead.
	deadDials []int
}

// sim is one run: the managers under test plus the simulated backends.
type sim struct {
	o      Options
	clk    *clock
	rng    *rand.Rand // noise and session lengths
	lb     *rand.Rand // which replica takes a connection
	arr    *rand.Rand // arrival gaps
	reps   []*replica
	idx    map[string]int
	lat    []time.Duration // network round trip
	server []time.Duration // server time on top, for status and login
	caps   []int
	state  []health
	listed []bool // in the route now
	active []int  // players on it, all replicas together
	route  []string
	events []Event // sorted by time; next is the first not applied
	next   int
	ends   sessionHeap
	res    *Result
	rec    recorder
	homes  map[int]int // each player's last backend (Options.Population)
}

// Run simulates o and returns where the players went.
func Run(o Options) (*Result, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	return runSim(newSim(o))
}

// runSim runs s to its end.
func runSim(s *sim) (*Result, error) {
	o := s.o
	ctx := context.Background()
	s.probeAll(ctx)
	t := epoch
	for i := range o.Count {
		if i > 0 {
			next := t.Add(s.gap())
			s.idle(ctx, t, next)
			t = next
		}
		s.advance(ctx, t)
		s.clk.t = t
		s.probeAll(ctx)
		s.connect(i, t, s.pickReplica())
		s.rec.leader(s, t)
	}
	s.finish(t)
	return s.res, nil
}

func newSim(o Options) *sim {
	n := len(o.Backends)
	s := &sim{
		o:      o,
		clk:    &clock{t: epoch},
		rng:    rand.New(rand.NewPCG(o.Seed, 0x706c616e)),
		lb:     rand.New(rand.NewPCG(o.Seed, 0x6c62)),
		arr:    rand.New(rand.NewPCG(o.Seed, 0x617272)),
		idx:    map[string]int{},
		lat:    make([]time.Duration, n),
		server: make([]time.Duration, n),
		caps:   make([]int, n),
		state:  make([]health, n),
		listed: make([]bool, n),
		active: make([]int, n),
		events: slices.Clone(o.Events),
	}
	slices.SortStableFunc(s.events, func(a, b Event) int { return int(a.At - b.At) })
	s.res = &Result{Strategy: o.Strategy, Setup: setupOf(o), Events: o.Events}
	for k, addr := range o.Backends {
		s.idx[addr] = k
		s.lat[k], s.caps[k] = s.baseLatency(addr), o.Capacity[addr]
		s.server[k] = o.World.Server[addr]
		s.res.Backends = append(s.res.Backends, BackendResult{
			Addr: addr, Latency: Duration(s.lat[k]), Capacity: o.Capacity[addr]})
	}
	for k, addr := range o.Backends {
		s.listed[k] = !addedLater(s.events, addr)
	}
	for _, addr := range o.Fail {
		s.state[s.idx[addr]] = timingOut
		s.res.Backends[s.idx[addr]].Dead = true
	}
	for _, addr := range o.Refuse {
		s.state[s.idx[addr]] = refusing
		s.res.Backends[s.idx[addr]].Dead = true
	}
	s.res.Timeline = buckets(o.Count, n)
	s.rec = newRecorder(o, n)
	s.route = s.routeBackends()
	for r := range o.Replicas {
		m := strategy.NewManager(strategy.Options{
			Seed: o.Seed + uint64(r)*replicaSeedStep, Now: s.clk.Now, Prober: s, Strategies: simStrategies()})
		s.reps = append(s.reps, &replica{m: m, deadDials: make([]int, n)})
	}
	s.setRoutes()
	return s
}

func (s *sim) baseLatency(addr string) time.Duration {
	if d, ok := s.o.Latency[addr]; ok && d > 0 {
		return d
	}
	return DefaultLatency
}

// routeBackends lists the backends in the route now, in config order.
func (s *sim) routeBackends() []string {
	var out []string
	for k, addr := range s.o.Backends {
		if s.listed[k] {
			out = append(out, addr)
		}
	}
	return out
}

// setRoutes (re)loads the route on every replica.
func (s *sim) setRoutes() {
	rt := strategy.Route{Key: routeKey, Strategy: s.o.Strategy, Backends: s.route, Health: s.o.Health,
		P2C: s.o.P2C, Capacity: s.o.CapacityOverride}
	for _, r := range s.reps {
		r.m.SetRoutes([]strategy.Route{rt})
	}
}

// gap is the time until the next arrival.
func (s *sim) gap() time.Duration {
	if s.o.ArrivalDist == DistPoisson {
		return expDraw(s.arr, s.o.Arrival)
	}
	return s.o.Arrival
}

// pickReplica is the load balancer in front of the replicas.
func (s *sim) pickReplica() *replica {
	if len(s.reps) == 1 {
		return s.reps[0]
	}
	return s.reps[s.lb.IntN(len(s.reps))]
}

// probeTick is how often the probe loop runs between two arrivals, so
// that probes keep their schedule however sparse the players are.
const probeTick = time.Second

// idle runs the probe loop every probeTick strictly between from and to.
func (s *sim) idle(ctx context.Context, from, to time.Time) {
	for t := from.Add(probeTick); t.Before(to); t = t.Add(probeTick) {
		s.advance(ctx, t)
		s.clk.t = t
		s.probeAll(ctx)
	}
}

// probeAll runs every probe due now, replica by replica.
func (s *sim) probeAll(ctx context.Context) {
	for _, r := range s.reps {
		r.m.ProbeDue(ctx)
	}
}

// sample is one TCP connect to backend k: its network round trip with
// noise (see noise.go).
func (s *sim) sample(k int) time.Duration {
	return s.jitter(s.lat[k])
}

// Probe answers the managers' probes as the simulated backend would.
func (s *sim) Probe(_ context.Context, addr string) (strategy.Report, error) {
	k, ok := s.idx[addr]
	if !ok {
		return strategy.Report{}, fmt.Errorf("probe %s: not a simulated backend", addr)
	}
	s.res.Backends[k].Probes++
	switch s.state[k] {
	case timingOut:
		return strategy.Report{}, fmt.Errorf("probe %s: %w", addr, errDialTimeout)
	case refusing:
		return strategy.Report{}, fmt.Errorf("probe %s: %w", addr, errRefused)
	}
	online, ok := s.o.ReportOnline[addr]
	if !ok {
		online = s.active[k] + s.o.Held[addr]
	}
	maxPlayers, ok := s.o.ReportMax[addr]
	if !ok {
		maxPlayers = s.caps[k]
	}
	s.rec.probed(k, s.clk.t)
	return strategy.Report{RTT: s.statusSample(k), Online: online, Max: maxPlayers, HasPlayers: maxPlayers > 0 && online >= 0}, nil
}

// length draws one session length.
func (s *sim) length() time.Duration {
	if s.o.SessionDist == DistExp {
		return max(expDraw(s.rng, s.o.Session), time.Second)
	}
	return s.o.Session/2 + time.Duration(s.rng.Int64N(int64(s.o.Session)+1))
}

// finish fills the shares, the imbalance, the metrics and the managers'
// final view (replica 0's, which is every replica's in a one-replica plan).
func (s *sim) finish(end time.Time) {
	live, most := 0, 0
	for k := range s.res.Backends {
		b := &s.res.Backends[k]
		b.Live = s.active[k]
		if s.res.Placed > 0 {
			b.Share = float64(b.Players*1000/s.res.Placed) / 10
		}
		if !b.Dead {
			live++
			most = max(most, b.Players)
		}
	}
	if s.res.Placed > 0 && live > 0 {
		s.res.Imbalance = float64(most*live*100/s.res.Placed) / 100
	}
	for _, st := range s.reps[0].m.Snapshot() {
		k, ok := s.idx[st.Addr]
		if !ok {
			continue
		}
		b := &s.res.Backends[k]
		b.Health = st.Health
		if st.HasLatency {
			b.Measured = Duration(st.Latency)
		}
	}
	s.res.Metrics = s.rec.metrics(s, end)
}
