package strategy

// Route is one route as the manager needs it.
type Route struct {
	// Key is the route's stable identity across reloads (the proxy uses its
	// first host pattern). State tied to the route survives a reload while
	// the key and strategy stay the same.
	Key string
	// Strategy orders the route's backends. Empty means sequential; an
	// unknown name falls back to sequential with an error logged.
	Strategy Name
	// Backends are the route's static backends. Templated backends ("$1")
	// are not listed: their state is created on demand by Order and
	// expires when unused.
	Backends []string
	// Health configures active checks for the route's backends.
	Health HealthCheck
}
