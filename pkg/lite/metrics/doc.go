// Package metrics exports the proxy's Prometheus metrics.
//
// It owns the metric names, their labels and the two ways they are fed: Metrics
// is a lite.Observer that counts session events as they happen (sessions,
// dials, status answers, rejections, bytes relayed), and at scrape time it
// reads the instance's backend view (health, eligibility, latency, players),
// so nothing in the connection path waits for it. Reload results arrive
// through ObserveReload.
//
// Every label is bounded by the config or by fixed strings: routes by their
// key (config.RouteKey, at most 128 bytes however many hosts a route has),
// backends by the address as configured (a "$1" backend is labelled by its
// template, never by what a client typed), reasons and sources by the lite
// package's constants. The series of a route or backend that leaves the config
// go at the next scrape once no session on it runs, so a discovery source's
// churn does not pile up. It does not own the HTTP listener (package admin serves
// Handler) or decide what a session is (package lite does).
package metrics
