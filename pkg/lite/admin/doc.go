// Package admin serves the proxy's admin API over HTTP and is the
// client behind `gate lite status` and the operator commands.
//
// The server answers /healthz (the process is up), /readyz (the player
// listener is bound and a config is loaded), /api/v1/routes and
// /api/v1/backends (JSON views of the routes in force and of every backend:
// state, active sessions, latency, load, eligibility and why), /api/v1/sessions
// (the live sessions with their players), /api/v1/events (the event stream,
// Server-Sent Events from package events' Bus, with a slot budget of its own) and
// /metrics when given a Prometheus handler. With a token every request but the health
// checks must carry "Authorization: Bearer TOKEN"; without one the server
// refuses to listen anywhere but loopback. It holds at most lite.AdminConns
// connections, and its own clients cannot keep the probes out of them
// (limitListener); the probes may also get a listener of their own.
//
// Its only writes are the operator layer's (/api/v1/operator/{kind}: maintenance,
// drain, ban, override; package operator): they need the token (a server without
// one refuses them), refuse a foreign Host or Origin, and each is logged in one
// audit line. It serves one page at / (embedded, no external assets) that reads
// the API and follows the event stream, authenticated by the header or by the
// HttpOnly cookie its login form sets.
//
// It does not own the metrics (package metrics), the data it shows (package
// lite computes it) or the layer (package operator stores and applies it); it
// only authenticates, encodes and renders.
package admin
