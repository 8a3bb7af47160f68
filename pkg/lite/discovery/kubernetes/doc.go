// Package kubernetes is the discovery source that finds routes on Kubernetes
// Services: a Service annotated with gate.minekube.com/hosts (or mc-router's
// externalServerName or defaultServer) becomes a route, and the ready
// addresses in its EndpointSlices become the route's backends (an
// ExternalName Service's name, or the proxy mc-router's proxyServerName
// names, instead).
//
// It owns the watch (client-go shared informers on Services and
// EndpointSlices), reading annotations and slices into discovery.Route values,
// the choice of backend port, and mc-router's annotations read with
// mc-router's meaning (mcrouter.go: its auto-scale annotations become the
// route's wake keys), and telling the Sink when the API server is out of reach
// and when it is back. It does not parse route settings (the merger does, with
// the file's parsers), does not merge its set with anyone else's, and never
// dials or resolves a backend: a name is handed over as the file's backends
// are, resolved at each dial.
//
// An outage never empties a route: the source publishes only what its caches
// hold after a complete list, and while the API server cannot be reached it
// says Stale once and publishes nothing.
package kubernetes
