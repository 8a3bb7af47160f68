package strategy

// Route is one route as the manager needs it.
type Route struct {
	// Key is the route's stable identity across reloads (the proxy uses its
	// first host pattern). State tied to the route survives a reload while
	// the key and strategy stay the same.
	Key string
	// Strategy orders the route's backends. Empty means Default; an
	// unknown name falls back to Default with an error logged.
	Strategy Name
	// Backends are the route's static backends. Templated backends ("$1")
	// are not listed: their state is created on demand by Order and
	// expires when unused.
	Backends []string
	// Health configures active checks for the route's backends. Its
	// Interval (default 10s) is also how often the backends of a route
	// whose strategy reads load or latency (p2c, lowest-latency,
	// least-loaded, weighted-random) are probed for reports and latency
	// when checks are off.
	Health HealthCheck
	// P2C tunes the p2c strategy; other strategies ignore it. The zero
	// value means every default.
	P2C P2CConfig
	// Capacity overrides the player capacity of some backends (address to
	// players), for servers whose reported max is not their real limit.
	// A backend listed by several routes takes the first route's value.
	// Nil means every backend's reported max stands.
	Capacity map[string]int
}
