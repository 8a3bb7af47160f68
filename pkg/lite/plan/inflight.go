package plan

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// Fault is how the faulty backend of a fault run misbehaves.
type Fault string

// The faults a fault run models. Each is what a login attempt costs the proxy: how
// long until it knows, and that it failed.
const (
	// FaultRefuse: dials are refused at once.
	FaultRefuse Fault = "refused"
	// FaultBlackhole: dials time out after DialTimeout.
	FaultBlackhole Fault = "black-hole"
	// FaultHang: the backend accepts and never answers; the attempt ends at the
	// first-response deadline.
	FaultHang Fault = "accept-never-answer"
	// FaultReset: the backend accepts and resets (or closes) after the handshake.
	FaultReset Fault = "reset-after-handshake"
	// FaultFlap: the backend is up FlapUp, then refuses for FlapDown, over and over.
	FaultFlap Fault = "flapping"
)

// FaultOptions describe one fault run: players arriving at Rate onto three backends
// (a, b and the faulty one, listed second) through Replicas proxies, each login's
// attempts taking virtual time, so that attempts overlap as they do in a real proxy
// (login rate × dial timeout of them in flight to a black hole).
type FaultOptions struct {
	Strategy strategy.Name
	Fault    Fault
	// Rate is logins per second over all replicas.
	Rate     float64
	Duration time.Duration
	Replicas int
	Seed     uint64
	// DialTimeout (2s) bounds a black-holed dial; FirstResponse (3s) a silent backend.
	DialTimeout, FirstResponse time.Duration
	// FaultAt is when the fault starts (the backend served until then); RecoverAt,
	// when set, is when it ends for good.
	FaultAt, RecoverAt time.Duration
	// FlapUp and FlapDown are the phases of FaultFlap: down from FaultAt for
	// FlapDown, then up for FlapUp, and so on.
	FlapUp, FlapDown time.Duration
	// Service is how long a healthy backend takes to a login's first byte
	// and to a status answer; the attempt is unsettled until then. Zero
	// means 2ms.
	Service time.Duration
	// WarmRate, when set, is the login rate before StormAt; Rate starts
	// then: a proxy that knew every backend healthy meets a storm.
	WarmRate float64
	StormAt  time.Duration
	// Health is the route's active health checks; the probe loop then
	// runs at their interval. Zero: off, as the proxy defaults.
	Health strategy.HealthCheck
	// Live is how many healthy backends serve beside the faulty one.
	// Zero means 2.
	Live int
	// SlowAfter, when set, is the join time beyond which a served player
	// counts in FaultResult.Slow (the sockets' storm tests count them).
	SlowAfter time.Duration
}

// FaultResult is what a fault run cost.
type FaultResult struct {
	Strategy strategy.Name `json:"strategy"`
	Fault    Fault         `json:"fault"`
	Rate     float64       `json:"rate"`
	Replicas int           `json:"replicas"`
	Logins   int           `json:"logins"`
	// Wasted counts player attempts to the faulty backend that failed, over all
	// replicas; WastedPerReplica the most one replica paid.
	Wasted           int `json:"wasted"`
	WastedPerReplica int `json:"wastedPerReplica"`
	// Errors counts players who got no backend at all.
	Errors int `json:"errors"`
	// MaxWait is the longest a player waited on the faulty backend.
	MaxWait Duration `json:"maxWait"`
	// Slow counts the served players whose join took longer than
	// FaultOptions.SlowAfter (their waits on the faulty backend and the
	// serving backend's Service).
	Slow int `json:"slow,omitempty"`
	// Shed is when the last attempt to the faulty backend failed before the run's end
	// (after FaultAt), for the non-flapping faults.
	Shed Duration `json:"shed"`
	// Back is how long after RecoverAt the backend served a player again; zero
	// when it did not within the run (or never failed for good).
	Back Duration `json:"back"`
}

// Attempt costs of a healthy backend: connect, then first byte.
const (
	faultLatency  = 2 * time.Millisecond
	faultSessions = 2 * time.Minute
)

var (
	errFaultRefused = errors.New("simulated: refused")
	errFaultTimeout = errors.New("simulated: dial timeout")
	errFaultSilent  = errors.New("simulated: no first byte in time")
	errFaultReset   = errors.New("simulated: reset before the first byte")
)

// faultSim is one fault run on a virtual clock.
type faultSim struct {
	o    FaultOptions
	clk  *clock
	rng  *rand.Rand
	reps []*faultReplica
	q    simQueue // settles and leaves
	// Arrivals and probe rounds come at fixed intervals: they are generated as the
	// clock reaches them rather than queued up front, so the queue holds only what is
	// in flight. At one instant an arrival comes first, then a probe round, then
	// queued events in the order they were queued.
	arrivals, probes ticker
	addrs            []string
	res              FaultResult
}

type faultReplica struct {
	m      *strategy.Manager
	wasted int
}

// login is one player's connection: its order and how far down it got.
type login struct {
	rep    *faultReplica
	order  []string
	next   int
	waited time.Duration
}

// RunFaults runs one fault scenario.
func RunFaults(o FaultOptions) (FaultResult, error) {
	if o.Rate <= 0 || o.Duration <= 0 {
		return FaultResult{}, fmt.Errorf("%w: fault run needs a rate and a duration", ErrInvalid)
	}
	o.Replicas = max(o.Replicas, 1)
	o.DialTimeout = or(o.DialTimeout, 2*time.Second)
	o.FirstResponse = or(o.FirstResponse, 3*time.Second)
	o.Service = or(o.Service, faultLatency)
	s := &faultSim{o: o, clk: &clock{t: epoch}, rng: rand.New(rand.NewPCG(o.Seed, 0x666c6170)),
		addrs: []string{"a", "bad", "c"}}
	if o.Live > 2 {
		// The storm's world: the faulty backend first, as the sockets' test lists it.
		s.addrs = []string{"bad"}
		for i := range o.Live {
			s.addrs = append(s.addrs, string(rune('a'+i)))
		}
	}
	s.res = FaultResult{Strategy: o.Strategy, Fault: o.Fault, Rate: o.Rate, Replicas: o.Replicas}
	rt := strategy.Route{Key: routeKey, Strategy: o.Strategy, Backends: s.addrs, Health: o.Health}
	for r := range o.Replicas {
		m := strategy.NewManager(strategy.Options{Seed: o.Seed + uint64(r)*replicaSeedStep, Now: s.clk.Now, Prober: s})
		m.SetRoutes([]strategy.Route{rt})
		s.reps = append(s.reps, &faultReplica{m: m})
	}
	s.arrivals = ticker{every: time.Duration(float64(time.Second) / o.Rate), end: o.Duration}
	if o.WarmRate > 0 {
		s.arrivals.warm, s.arrivals.until = time.Duration(float64(time.Second)/o.WarmRate), o.StormAt
	}
	s.probes = ticker{every: time.Second, end: o.Duration}
	if o.Health.Enabled {
		s.probes.every = min(s.probes.every, o.Health.Interval)
	}
	s.run()
	for _, r := range s.reps {
		s.res.Wasted += r.wasted
		s.res.WastedPerReplica = max(s.res.WastedPerReplica, r.wasted)
	}
	return s.res, nil
}

func (s *faultSim) run() {
	ctx := context.Background()
	for {
		at, kind := s.arrivals.next, evArrive
		if !s.arrivals.due() || s.probes.due() && s.probes.next < at {
			at, kind = s.probes.next, evProbe
		}
		queued := s.q.peek()
		if !s.arrivals.due() && !s.probes.due() {
			if queued == nil {
				return
			}
			kind = -1
		} else if queued != nil && queued.at < at {
			kind = -1
		}
		switch kind {
		case evArrive:
			s.arrivals.advance()
			s.clk.t = epoch.Add(at)
			s.res.Logins++
			rep := s.reps[s.rng.IntN(len(s.reps))]
			l := &login{rep: rep, order: rep.m.Order(routeKey, s.addrs, strategy.IntentLogin)}
			s.try(l)
		case evProbe:
			s.probes.advance()
			s.clk.t = epoch.Add(at)
			for _, r := range s.reps {
				r.m.ProbeDue(ctx)
			}
		default:
			e := s.q.pop()
			s.clk.t = epoch.Add(e.at)
			switch e.kind {
			case evSettle:
				if e.stop != nil {
					e.stop()
				}
				if !e.gaveUp {
					s.settle(e)
				}
			case evLeave:
				e.lease.Release()
			}
		}
	}
}

// try starts the login's next attempt, or counts the player as failed.
func (s *faultSim) try(l *login) {
	if l.next >= len(l.order) {
		s.res.Errors++
		return
	}
	addr := l.order[l.next]
	l.next++
	lease := l.rep.m.Reserve(addr)
	cost, err := s.outcome(addr)
	e := &simEvent{at: s.clk.t.Sub(epoch) + cost, kind: evSettle, login: l, lease: lease, cost: cost, err: err}
	s.q.push(e)
	if err == errFaultSilent {
		s.watch(e, addr)
	}
}

func (s *faultSim) settle(e *simEvent) {
	l := e.login
	if e.err == nil {
		e.lease.Settle(s.o.Service, nil)
		if s.o.SlowAfter > 0 && l.waited+s.o.Service > s.o.SlowAfter {
			s.res.Slow++
		}
		if at := s.clk.t.Sub(epoch); e.lease.Addr() == "bad" && s.o.RecoverAt > 0 && at >= s.o.RecoverAt && s.res.Back == 0 {
			s.res.Back = Duration(at - s.o.RecoverAt)
		}
		end := s.clk.t.Sub(epoch) + faultSessions/2 + time.Duration(s.rng.Int64N(int64(faultSessions)))
		s.q.push(&simEvent{at: end, kind: evLeave, lease: e.lease})
		return
	}
	e.lease.Settle(0, e.err)
	l.rep.wasted++
	l.waited += e.cost
	s.res.MaxWait = max(s.res.MaxWait, Duration(l.waited))
	if s.o.Fault != FaultFlap {
		s.res.Shed = max(s.res.Shed, Duration(s.clk.t.Sub(epoch)-s.o.FaultAt))
	}
	s.try(l)
}

// outcome is what an attempt to addr starting now costs and how it ends.
func (s *faultSim) outcome(addr string) (time.Duration, error) {
	if addr != "bad" || !s.down() {
		return s.o.Service, nil
	}
	switch s.o.Fault {
	case FaultBlackhole:
		return s.o.DialTimeout, errFaultTimeout
	case FaultHang:
		return faultLatency/2 + s.o.FirstResponse, errFaultSilent
	case FaultReset:
		return faultLatency, errFaultReset
	}
	return faultLatency / 2, errFaultRefused
}

// down reports whether the faulty backend is failing now.
func (s *faultSim) down() bool {
	since := s.clk.t.Sub(epoch) - s.o.FaultAt
	if since < 0 || (s.o.RecoverAt > 0 && s.clk.t.Sub(epoch) >= s.o.RecoverAt) {
		return false
	}
	if s.o.Fault != FaultFlap {
		return true
	}
	period := s.o.FlapUp + s.o.FlapDown
	return since%period < s.o.FlapDown
}

// Probe answers the managers' probes as the backends would now.
func (s *faultSim) Probe(_ context.Context, addr string) (strategy.Report, error) {
	if addr == "bad" && s.down() {
		return strategy.Report{}, fmt.Errorf("probe %s: %w", addr, errFaultRefused)
	}
	return strategy.Report{RTT: s.o.Service, Online: 0, Max: 1000, HasPlayers: true}, nil
}

// Event kinds of the fault run's queue.
const (
	evArrive = iota
	evSettle
	evLeave
	evProbe
)

type simEvent struct {
	at     time.Duration // since epoch
	seq    int
	kind   int
	login  *login
	lease  *strategy.Lease
	cost   time.Duration
	err    error
	stop   func() // ends a silent attempt's stall watch (inflight_stall.go)
	gaveUp bool   // the watch settled it early, in an event of its own
}

// simQueue orders events by time, then by the order they were pushed. It is a
// binary heap of pointers: a run queues one event per attempt and per session, and
// moving pointers (not events) through an interface-free heap keeps the simulation's
// cost in the strategies it measures, race detector or not.
type simQueue struct {
	items  []*simEvent
	pushed int
}

func (q *simQueue) less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// peek returns the first event, nil when the queue is empty.
func (q *simQueue) peek() *simEvent {
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

func (q *simQueue) push(e *simEvent) {
	q.pushed++
	e.seq = q.pushed
	q.items = append(q.items, e)
	for i := len(q.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

func (q *simQueue) pop() *simEvent {
	n := len(q.items) - 1
	top := q.items[0]
	q.items[0] = q.items[n]
	q.items[n] = nil
	q.items = q.items[:n]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < n && q.less(l, least) {
			least = l
		}
		if r < n && q.less(r, least) {
			least = r
		}
		if least == i {
			break
		}
		q.items[i], q.items[least] = q.items[least], q.items[i]
		i = least
	}
	return top
}
