// Package plan simulates where players would land: it drives the real
// strategy.Manager with a virtual clock and simulated backends (latency,
// capacity, what they report, dead and black-holed ones, changes on a
// schedule), through one or several independent proxy replicas, and reports
// the distribution and quality metrics as a table and as JSON. Named
// scenarios compare every strategy, and a model of Gate Lite's
// lowest-latency, on one world. The same options and seed always give
// byte-identical output.
//
// It owns the simulation model and its output. It does not read the proxy's
// configuration or resolve hosts: the caller (cmd/gate's "lite plan")
// resolves the route and passes its strategy, backends and tuning in
// Options.
package plan
