// Package discovery is where routes that nobody wrote in the config file come
// from: a Source (the Kubernetes API, the Docker daemon, tomorrow a Consul
// catalog) watches its engine and hands over its whole route set every time
// that set changes; the Merger puts the file's routes and every source's set
// together and applies the result through the same transactional reload a
// file edit uses.
//
// It owns the seam (Source, Sink, Route) and the merge: precedence between
// sources, host claims (the first claimant among owners keeps a host, and the
// file's `hosts` grants bound what an owner may claim), the staleness of each
// source, and turning a source's settings into config routes with the file's
// own parsers. It does
// not own any engine's client (each lives in a sub-package) nor how routes are
// served (package lite).
//
// A source that loses its engine keeps its last set in force and says it is
// stale: an outage never empties a route.
package discovery
