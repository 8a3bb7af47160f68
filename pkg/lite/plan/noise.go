package plan

import (
	"flag"
	"slices"
	"time"
)

// NoiseWorld is the part of a simulated world that makes measurements
// lie: Gaussian jitter, rare large spikes, a server that lags while its
// network is fast, and an unlucky first probe. The zero value is a quiet
// world (only Options.Noise applies).
type NoiseWorld struct {
	// Sigma is the standard deviation of Gaussian jitter on every
	// measured round trip.
	Sigma time.Duration
	// SpikePercent of the samples get Spike added (a lost packet, a
	// collection pause on the server).
	SpikePercent int
	Spike        time.Duration
	// Server is each backend's server time: it adds to every status
	// round trip, never to a TCP connect, which the backend's kernel
	// answers. A backend not listed has none.
	Server map[string]time.Duration
	// FirstSpike lists backends whose first probe answer carries a spike.
	FirstSpike []string
	// StatusServer is what building a status answer adds, on every
	// backend, to the server time of a login's first byte: the two sample
	// kinds differ, as they do on real servers.
	StatusServer time.Duration
	// SlowLogins is, per backend, the percentage of logins whose first
	// byte comes SlowLogin after the preamble (a server that is sometimes
	// very slow to take a player), jitter on top.
	SlowLogins map[string]int
	SlowLogin  time.Duration
}

// flags binds the noise flags.
func (n *NoiseWorld) flags(fs *flag.FlagSet) {
	fs.DurationVar(&n.Sigma, "sigma", 0, "standard deviation of Gaussian jitter on every round trip")
	fs.IntVar(&n.SpikePercent, "spike-percent", 0, "share of samples, in percent, that carry a --spike")
	fs.DurationVar(&n.Spike, "spike", 0, "what a spike adds to a round trip (0: 150ms)")
	fs.Var(durationsFlag{&n.Server}, "server", "backend server times, added to status round trips but not to connects, e.g. b=250ms")
	fs.Var(listFlag{&n.FirstSpike}, "first-spike", "backends whose first probe answer is a spike, comma separated")
	fs.DurationVar(&n.StatusServer, "status-server", 0, "server time a status answer takes on top of a login's first byte, every backend")
	fs.Var(intsFlag{&n.SlowLogins}, "slow-logins", "percentage of each backend's logins that are slow, e.g. b=30")
	fs.DurationVar(&n.SlowLogin, "slow-login", 0, "first-byte time of a slow login (0: 400ms)")
}

// DefaultSlowLogin is a slow login's first byte when the world sets none.
const DefaultSlowLogin = 400 * time.Millisecond

// DefaultSpike is what a spike adds when the world sets none.
const DefaultSpike = 150 * time.Millisecond

// minSample is the smallest simulated round trip, so jitter never makes
// one zero (which means "not measured") or negative.
const minSample = 100 * time.Microsecond

// gaussSteps sums this many uniform draws into one approximately Gaussian
// draw (Irwin-Hall); integers keep plans identical on every platform.
const gaussSteps = 12

// gauss returns a draw with standard deviation sigma and mean zero.
func (s *sim) gauss(sigma time.Duration) time.Duration {
	if sigma <= 0 {
		return 0
	}
	const unit = 1 << 20
	var sum int64
	for range gaussSteps {
		sum += s.rng.Int64N(unit)
	}
	return time.Duration((sum - gaussSteps*unit/2) * int64(sigma) / unit)
}

// jitter adds the world's noise to a round trip of lat.
func (s *sim) jitter(lat time.Duration) time.Duration {
	d := lat
	if span := int64(lat) * int64(s.o.Noise) / 100; span > 0 {
		d += time.Duration(s.rng.Int64N(2*span+1) - span)
	}
	d += s.gauss(s.o.World.Sigma)
	if p := s.o.World.SpikePercent; p > 0 && s.rng.IntN(100) < p {
		d += s.o.World.Spike
	}
	return max(d, minSample)
}

// statusSample is one status round trip with backend k: network and
// server, with noise; a backend's first probe may be forced to spike.
func (s *sim) statusSample(k int) time.Duration {
	d := s.jitter(s.lat[k] + s.server[k] + s.o.World.StatusServer)
	if s.res.Backends[k].Probes == 1 && slices.Contains(s.o.World.FirstSpike, s.o.Backends[k]) {
		d += s.o.World.Spike
	}
	return d
}

// firstByteSample is the time from a login's preamble to backend k's
// first byte: one round trip through the network and the server, or a
// slow login's time. Only a backend with slow logins draws for them, so
// every other world's noise stays what it was.
func (s *sim) firstByteSample(k int) time.Duration {
	if p := s.o.World.SlowLogins[s.o.Backends[k]]; p > 0 && s.rng.IntN(100) < p {
		return s.jitter(s.o.World.SlowLogin)
	}
	return s.jitter(s.lat[k] + s.server[k])
}
