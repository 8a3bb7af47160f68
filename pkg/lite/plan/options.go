package plan

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// Defaults of Options, applied to zero fields by Run and used as flag defaults.
const (
	DefaultCount       = 500
	DefaultSeed        = 42
	DefaultLatency     = 20 * time.Millisecond
	DefaultSession     = 10 * time.Minute
	DefaultArrival     = time.Second
	DefaultNoise       = 10 // percent
	DefaultDialTimeout = 5 * time.Second
	DefaultBudget      = 30 * time.Second
	// DefaultFirstResponse is the proxy's firstResponseTimeout default.
	DefaultFirstResponse = 3 * time.Second
	DefaultReplicas      = 1
)

// maxReplicas bounds --replicas; each replica is a full manager.
const maxReplicas = 256

// Options describe one simulated plan.
type Options struct {
	// Strategy is the route's strategy (from config). Empty means sequential.
	Strategy strategy.Name
	// Override replaces Strategy when set (the --strategy flag), so it wins
	// whatever order the caller fills Strategy in.
	Override strategy.Name
	// Backends are the route's backends in config order. Required.
	Backends []string
	// Count is how many players connect. Zero means 500.
	Count int
	// Seed drives the manager's choices and the simulated noise and
	// session lengths. Zero means 42, so a plan is always reproducible.
	Seed uint64

	// Latency is each backend's round-trip time; a backend not listed has
	// 20ms.
	Latency map[string]time.Duration
	// Noise is the uniform jitter on every measured latency, in percent of
	// the backend's latency. Zero means none; the flag defaults to 10.
	Noise int
	// Capacity is each backend's player limit; a full backend answers a
	// login with a Login Disconnect, and the player goes on to the next
	// backend as the proxy sends them. Missing or 0 means unlimited.
	Capacity map[string]int
	// Fail lists dead backends: every dial to them times out.
	Fail []string
	// Session is the mean session length; each one lasts a random 50-150%
	// of it. Zero means 10m.
	Session time.Duration
	// Arrival is the gap between two players connecting. Zero means 1s.
	Arrival time.Duration
	// DialTimeout is what a dial to a dead backend costs the player.
	// Zero means 5s.
	DialTimeout time.Duration
	// Health is the route's active health-check config (from config);
	// probes are simulated like dials.
	Health strategy.HealthCheck
	// HealthInterval, when positive (the --health-interval flag), turns
	// health checks on at this interval whatever Health says.
	HealthInterval time.Duration

	// Replicas is how many proxy replicas share the players, each with its
	// own manager and seed and nothing shared, behind an L4 load balancer
	// that sends each connection to a random one. Zero means 1.
	Replicas int
	// Refuse lists dead backends that refuse connections at once (a closed
	// port), where Fail ones time out (black-holed).
	Refuse []string
	// ArrivalDist is DistFixed (default: one player every Arrival) or
	// DistPoisson (independent players, Arrival apart on average).
	ArrivalDist Dist
	// SessionDist is DistUniform (default: 50-150% of Session) or DistExp.
	SessionDist Dist
	// Budget bounds one player's dialing, as the proxy's readTimeout does:
	// no new dial starts after it, and a dial is cut at it. Zero means 30s.
	Budget time.Duration
	// ReportOnline makes backends report a fixed number of players online
	// whatever they have (a server that always says 0).
	ReportOnline map[string]int
	// Population, when set, is how many distinct players there are:
	// connection i is player i mod Population, so from connection
	// Population on every player comes back (each after Population
	// arrivals; a Session shorter than that has ended by then). Zero: every
	// connection is a new player.
	Population int
	// Held is the players already on each backend from outside the
	// simulated replicas (another proxy, a direct join): they count against
	// its Capacity and in its reports (unless ReportOnline says otherwise),
	// and no strategy placed them.
	Held map[string]int
	// ReportMax makes backends report a fixed max whatever their capacity
	// (a server that always says 500). Otherwise a backend reports its
	// Capacity, and a backend without one reports no usable players object.
	ReportMax map[string]int
	// Events change the world during the run.
	Events []Event
	// P2C is the route's p2c tuning (from config).
	P2C strategy.P2CConfig
	// CapacityOverride is the route's per-backend `capacity:` (from
	// config), what the strategy believes rather than what the backend has.
	CapacityOverride map[string]int
	// World adds spiky noise and server time (see NoiseWorld).
	World NoiseWorld
	// FirstResponse is the route's first-response wait (the proxy's
	// firstResponseTimeout), which the manager's Patience stretches for a
	// slow fleet: a login whose first answer (network and server time)
	// comes later fails over. Zero means 3s.
	FirstResponse time.Duration
	// CustomRefusal lists backends whose refusal when full is in the
	// operator's own words, not a text known to mean full: the proxy learns
	// them full only once another backend took the player.
	CustomRefusal []string
}

// Flags binds the simulation flags to o, with their defaults:
// --count 500 --seed 42 --strategy (override) --latency a=20ms,b=50ms
// --capacity a=100 --fail b --noise 10 --session 10m --arrival 1s
// --dial-timeout 5s --health-interval 0 (as the route configures).
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.Count, "count", DefaultCount, "players to simulate")
	fs.Uint64Var(&o.Seed, "seed", DefaultSeed, "seed of every random choice; same seed, same plan")
	fs.Var(nameFlag{&o.Override}, "strategy", "strategy to simulate instead of the route's ("+strategy.NameList()+"; gate-lowest-latency models Gate Lite)")
	fs.Var(durationsFlag{&o.Latency}, "latency", "backend round-trip times, e.g. a:25565=20ms,b:25565=50ms (default 20ms each)")
	fs.Var(intsFlag{&o.Capacity}, "capacity", "backend player limits, e.g. a:25565=100 (default unlimited)")
	fs.Var(listFlag{&o.Fail}, "fail", "dead backends whose dials time out, comma separated")
	fs.IntVar(&o.Noise, "noise", DefaultNoise, "latency jitter in percent")
	fs.DurationVar(&o.Session, "session", DefaultSession, "mean session length")
	fs.DurationVar(&o.Arrival, "arrival", DefaultArrival, "time between two players connecting")
	fs.DurationVar(&o.DialTimeout, "dial-timeout", DefaultDialTimeout, "what a dial to a dead backend costs")
	fs.DurationVar(&o.HealthInterval, "health-interval", 0, "simulate active health checks at this interval (0: as the route configures)")
	fs.IntVar(&o.Replicas, "replicas", DefaultReplicas, "proxy replicas sharing the players, each deciding on its own")
	fs.Var(listFlag{&o.Refuse}, "refuse", "dead backends that refuse connections at once, comma separated")
	fs.Var(distFlag{&o.ArrivalDist}, "arrival-dist", "arrival gaps: fixed or poisson")
	fs.Var(distFlag{&o.SessionDist}, "session-dist", "session lengths: uniform (50-150% of --session) or exp")
	fs.DurationVar(&o.Budget, "budget", DefaultBudget, "dialing budget of one player (the proxy's readTimeout)")
	fs.Var(intsFlag{&o.ReportOnline}, "report-online", "backends that always report this many players online, e.g. a=0")
	fs.IntVar(&o.Population, "population", 0, "distinct players: connection i is player i mod this, so players come back (0: every connection is new)")
	fs.Var(intsFlag{&o.Held}, "held", "players already on backends from elsewhere, e.g. a=10 (they count against capacity)")
	fs.Var(intsFlag{&o.ReportMax}, "report-max", "backends that always report this max, e.g. a=500")
	o.World.flags(fs)
	fs.DurationVar(&o.FirstResponse, "first-response", DefaultFirstResponse, "first-response wait of a login (the proxy's firstResponseTimeout)")
	fs.Var(listFlag{&o.CustomRefusal}, "custom-refusal", "backends that refuse, when full, in their own words (not known to mean full), comma separated")
	fs.Var(eventsFlag{&o.Events}, "event", "scheduled change AT:KIND:BACKEND[=VALUE], e.g. 5m:add:c, 2m:latency:b=+200ms, 3m:fail:b, 3m:refuse:b, 6m:recover:b, 1m:capacity:a=50")
}

// ErrInvalid is wrapped by Run for unusable options.
var ErrInvalid = errors.New("invalid plan options")

// normalize applies defaults and validates, returning the effective options.
func (o Options) normalize() (Options, error) {
	if o.Override != "" {
		o.Strategy = o.Override
	}
	name, err := parseName(string(o.Strategy))
	if err != nil {
		return o, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	o.Strategy = name
	if len(o.Backends) == 0 {
		return o, fmt.Errorf("%w: no backends", ErrInvalid)
	}
	for i, b := range o.Backends {
		if slices.Contains(o.Backends[:i], b) {
			return o, fmt.Errorf("%w: backend %s listed twice", ErrInvalid, b)
		}
	}
	for addr, p := range o.World.SlowLogins {
		if p < 0 || p > 100 {
			return o, fmt.Errorf("%w: slow logins of %s %d%% (want 0-100)", ErrInvalid, addr, p)
		}
	}
	if p := o.World.SpikePercent; p < 0 || p > 100 || o.World.Sigma < 0 {
		return o, fmt.Errorf("%w: spike percent %d, sigma %v (want 0-100, >= 0)", ErrInvalid, p, o.World.Sigma)
	}
	if o.Count < 0 || o.Noise < 0 || o.Noise > 100 || o.Population < 0 {
		return o, fmt.Errorf("%w: count %d, noise %d%%, population %d (want count and population >= 0, noise 0-100)",
			ErrInvalid, o.Count, o.Noise, o.Population)
	}
	if o.Replicas < 0 || o.Replicas > maxReplicas {
		return o, fmt.Errorf("%w: replicas %d (want 1-%d)", ErrInvalid, o.Replicas, maxReplicas)
	}
	if err := o.checkNames(); err != nil {
		return o, err
	}
	if o.ArrivalDist, err = parseDist(o.ArrivalDist, "arrival", DistFixed, DistPoisson); err != nil {
		return o, err
	}
	if o.SessionDist, err = parseDist(o.SessionDist, "session", DistUniform, DistExp); err != nil {
		return o, err
	}
	return o.withDefaults(), nil
}

// withDefaults fills zero fields and resolves the health-check settings.
func (o Options) withDefaults() Options {
	o.Replicas = or(o.Replicas, DefaultReplicas)
	o.Budget = or(o.Budget, DefaultBudget)
	o.FirstResponse = or(o.FirstResponse, DefaultFirstResponse)
	o.Count = or(o.Count, DefaultCount)
	o.Seed = or(o.Seed, DefaultSeed)
	o.Session = or(o.Session, DefaultSession)
	o.Arrival = or(o.Arrival, DefaultArrival)
	o.DialTimeout = or(o.DialTimeout, DefaultDialTimeout)
	o.World.Spike = or(o.World.Spike, DefaultSpike)
	o.World.SlowLogin = or(o.World.SlowLogin, DefaultSlowLogin)
	if o.HealthInterval > 0 {
		o.Health.Enabled, o.Health.Interval = true, o.HealthInterval
		// The config requires timeout < interval; keep that for short
		// simulated intervals.
		if o.Health.Timeout >= o.HealthInterval {
			o.Health.Timeout = o.HealthInterval / 2
		}
	}
	if o.Health.Enabled {
		o.Health = o.Health.WithDefaults()
	}
	return o
}

// checkNames rejects simulation settings for backends the route does not
// have, which are almost always typos.
func (o Options) checkNames() error {
	var unknown []string
	check := func(flag, addr string) {
		if !slices.Contains(o.Backends, addr) {
			unknown = append(unknown, fmt.Sprintf("--%s %s", flag, addr))
		}
	}
	for addr := range o.Latency {
		check("latency", addr)
	}
	for addr := range o.Capacity {
		check("capacity", addr)
	}
	for _, addr := range o.Fail {
		check("fail", addr)
	}
	for _, addr := range o.Refuse {
		check("refuse", addr)
	}
	for _, addr := range o.CustomRefusal {
		check("custom-refusal", addr)
	}
	for addr := range o.ReportOnline {
		check("report-online", addr)
	}
	for addr := range o.ReportMax {
		check("report-max", addr)
	}
	for addr := range o.Held {
		check("held", addr)
	}
	for _, e := range o.Events {
		check("event", e.Backend)
	}
	for addr := range o.World.Server {
		check("server", addr)
	}
	for _, addr := range o.World.FirstSpike {
		check("first-spike", addr)
	}
	for addr := range o.World.SlowLogins {
		check("slow-logins", addr)
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("%w: unknown backend in %s (backends: %s)", ErrInvalid,
		strings.Join(unknown, ", "), strings.Join(o.Backends, ", "))
}

// distFlag sets a distribution name; Run validates it.
type distFlag struct{ d *Dist }

func (f distFlag) String() string {
	if f.d == nil {
		return ""
	}
	return string(*f.d)
}

func (f distFlag) Set(s string) error {
	*f.d = Dist(s)
	return nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
