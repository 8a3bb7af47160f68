// Package plan simulates where players would land: it drives the real
// strategy.Manager with a virtual clock and simulated backends (latency,
// capacity, dead ones) and reports the distribution as a table and as JSON.
// The same options and seed always give byte-identical output.
//
// It owns the simulation model and its output. It does not read the proxy's
// configuration or resolve hosts: the caller (cmd/gate's "lite plan")
// resolves the route and passes its strategy and backends in Options.
package plan
