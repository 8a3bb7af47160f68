// Package lite is the Lite proxy instance: the path of every connection, from accept
// to a status answer or a joined session, and live reconfiguration. Its jobs, a file
// each (the path itself reads top to bottom in session.go, whose run names every way
// out):
//
//   - lite.go, fdcap.go: the instance: options, listener, accept loop and its
//     open-files cap, reload (an atomic swap of an immutable snapshot), shutdown;
//   - snapshot.go: the compiled config a connection keeps for its whole life;
//   - session.go: the path, the handshake read, the end of every connection;
//   - peer.go: who the peer is (PROXY header from a trusted front, TCPShield RealIP);
//   - admit.go: whether it may connect (asks package admission);
//   - refused.go: what a player turned away is told, and the bound on telling;
//   - statuspath.go, legacy.go: answering server-list pings (modern and pre-1.7);
//   - exchange.go: the one status exchange with a backend (status path, prober,
//     readiness of a waking route);
//   - login.go, await.go, backendfull.go: the one login attempt (dial, preamble, the
//     backend's first answer, a "full" answer settled as a failure) and the walk
//     down a route's backends;
//   - hold.go: holding a login while its route's target wakes (the player's side);
//   - relay.go: a joined session, handed to package relay until it ends;
//   - dial.go: reaching a backend (through package reach's guard and loop record);
//   - event.go, info.go: what observers and the admin view see.
//
// It does not own protocol encoding (package wire), host matching (package route),
// config parsing (package config), the status cache and status rewrites (package
// status), backend selection (package strategy), admission decisions and the
// open-files budget (package admission), sleeping targets and their state (package
// wake: the instance asks its Routes seam whether a route sleeps, holds a login
// through it and reports joined sessions to it), how a backend is reached (package
// reach) or moving a joined session's bytes (package relay). Raising the process's
// open-files limit is the program's decision (cmd/gate); the instance only reads it.
package lite
