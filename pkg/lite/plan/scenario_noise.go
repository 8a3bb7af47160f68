package plan

import "time"

// spiky is the noise of a real network: σ 15 ms Gaussian jitter and 5%
// of the samples 150 ms late.
func spiky(o Options) Options {
	o.Noise = 0
	o.World.Sigma, o.World.SpikePercent, o.World.Spike = 15*time.Millisecond, 5, 150*time.Millisecond
	return o
}

// noiseScenarios are the worlds that found the defects of issue 14, one
// each, with the figure each pins.
func noiseScenarios() []Scenario {
	two := []string{"a", "b"}
	spikyEqual := spiky(world())
	spikyEqual.Backends, spikyEqual.Capacity = two, each(two, 200)
	spikyEqual.Count, spikyEqual.Arrival, spikyEqual.Session = 150, 48*time.Second, 5*time.Minute

	unlucky := spiky(world())
	unlucky.Backends, unlucky.Capacity = two, each(two, 200)
	unlucky.Count, unlucky.Session = 150, 5*time.Minute
	unlucky.World.FirstSpike = []string{"b"}

	faster := spiky(world())
	faster.Backends, faster.Capacity, faster.Count = two, each(two, 400), 600
	faster.Latency = each(two, 70*time.Millisecond)
	faster.Events = []Event{{At: 5 * time.Minute, Kind: EventLatency, Backend: "b", Latency: -50 * time.Millisecond, Relative: true}}

	slowServer := world()
	slowServer.Events = []Event{{At: 3 * time.Minute, Kind: EventServer, Backend: "b", Latency: 250 * time.Millisecond, Relative: true}}

	big := world()
	big.Capacity = map[string]int{"a": 2000, "b": 200, "c": 200, "d": 200}
	big.Count, big.Session = 1000, 30*time.Minute

	zero16 := world()
	zero16.ReportOnline = map[string]int{"d": 0}
	zero16.Replicas, zero16.Count = 16, 2000
	// 752 players at once, 94% of 800: ten-minute sessions, one player
	// every 798 ms.
	zero16.Arrival = 798 * time.Millisecond

	return []Scenario{
		{"spiky-equal", "two equal 20ms backends, σ 15ms jitter and 5% spikes of +150ms, two hours", spikyEqual,
			"lowest-latency FLAPS/H <= 0.50, MIN SHARE >= 25%"},
		{"unlucky-first-probe", "two equal spiky backends; b's first probe answer is a spike", unlucky,
			"MIN SHARE >= 25% for every strategy but sequential"},
		{"faster-for-real", "two spiky 70ms backends; b becomes 50ms faster after 5 minutes", faster,
			"lowest-latency ADOPTED <= 2m"},
		{"slow-server", "backend b's server lags 250ms after 3 minutes; its network stays fast", slowServer,
			"lowest-latency and p2c SHED <5% <= 1m"},
		{"big-and-small", "capacities 2000, 200, 200 and 200, 1000 players", big,
			"p2c MAX/FAIR <= 1.15"},
		{"zero-reporter-16", "16 replicas at 94% fill; backend d always reports 0 online", zero16,
			"p2c TURNED AWAY <= least-connections"},
	}
}
