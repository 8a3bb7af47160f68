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
)

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
	// Capacity is each backend's player limit; a player placed on a full
	// backend is turned away by it (Lite cannot see that and does not fail
	// over). Missing or 0 means unlimited.
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
}

// Flags binds the simulation flags to o, with their defaults:
// --count 500 --seed 42 --strategy (override) --latency a=20ms,b=50ms
// --capacity a=100 --fail b --noise 10 --session 10m --arrival 1s
// --dial-timeout 5s --health-interval 0 (as the route configures).
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.Count, "count", DefaultCount, "players to simulate")
	fs.Uint64Var(&o.Seed, "seed", DefaultSeed, "seed of every random choice; same seed, same plan")
	fs.Var(nameFlag{&o.Override}, "strategy", "strategy to simulate instead of the route's (sequential, random, round-robin, least-connections, lowest-latency)")
	fs.Var(durationsFlag{&o.Latency}, "latency", "backend round-trip times, e.g. a:25565=20ms,b:25565=50ms (default 20ms each)")
	fs.Var(intsFlag{&o.Capacity}, "capacity", "backend player limits, e.g. a:25565=100 (default unlimited)")
	fs.Var(listFlag{&o.Fail}, "fail", "dead backends whose dials time out, comma separated")
	fs.IntVar(&o.Noise, "noise", DefaultNoise, "latency jitter in percent")
	fs.DurationVar(&o.Session, "session", DefaultSession, "mean session length")
	fs.DurationVar(&o.Arrival, "arrival", DefaultArrival, "time between two players connecting")
	fs.DurationVar(&o.DialTimeout, "dial-timeout", DefaultDialTimeout, "what a dial to a dead backend costs")
	fs.DurationVar(&o.HealthInterval, "health-interval", 0, "simulate active health checks at this interval (0: as the route configures)")
}

// ErrInvalid is wrapped by Run for unusable options.
var ErrInvalid = errors.New("invalid plan options")

// normalize applies defaults and validates, returning the effective options.
func (o Options) normalize() (Options, error) {
	if o.Override != "" {
		o.Strategy = o.Override
	}
	name, err := strategy.ParseName(string(o.Strategy))
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
	if o.Count < 0 || o.Noise < 0 || o.Noise > 100 {
		return o, fmt.Errorf("%w: count %d, noise %d%% (want count >= 0, noise 0-100)", ErrInvalid, o.Count, o.Noise)
	}
	if err := o.checkNames(); err != nil {
		return o, err
	}
	o.Count = or(o.Count, DefaultCount)
	o.Seed = or(o.Seed, DefaultSeed)
	o.Session = or(o.Session, DefaultSession)
	o.Arrival = or(o.Arrival, DefaultArrival)
	o.DialTimeout = or(o.DialTimeout, DefaultDialTimeout)
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
	return o, nil
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
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("%w: unknown backend in %s (backends: %s)", ErrInvalid,
		strings.Join(unknown, ", "), strings.Join(o.Backends, ", "))
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
