// Package transfer owns the protocol conversation of a login the proxy finishes
// itself in order to send the player elsewhere with the 1.20.5+ Transfer packet:
// Login Success (offline: the name and UUID the client sent), the client's Login
// Acknowledged, then, in the configuration state, the Transfer, after which it
// waits for the client to hang up. Every read has a deadline and every frame a
// size cap, so a client that never acknowledges, sends garbage or oversized
// frames costs one bounded wait.
//
// It does not decide who is sent where (the route's config does, and lite calls
// Redirect at the right step of a session), never dials a backend, and never
// guesses a protocol version's packet ids: a client whose version is not in
// wire's generated table gets ErrUnsupported and the caller's older path.
package transfer
