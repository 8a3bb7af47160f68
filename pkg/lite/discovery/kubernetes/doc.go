// Package kubernetes is the discovery source that finds routes on Kubernetes
// Services: a Service annotated with gate.minekube.com/hosts (or mc-router's
// externalServerName or defaultServer) becomes a route, and the ready
// addresses in its EndpointSlices become the route's backends.
//
// It owns the watch (client-go shared informers on Services and
// EndpointSlices), reading annotations and slices into discovery.Route values,
// the choice of backend port, and telling the Sink when the API server is out
// of reach and when it is back. It does not parse route settings (the merger
// does, with the file's parsers), does not merge its set with anyone else's,
// and never dials a backend.
//
// An outage never empties a route: the source publishes only what its caches
// hold after a complete list, and while the API server cannot be reached it
// says Stale once and publishes nothing.
package kubernetes
