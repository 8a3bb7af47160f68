// Package lite is the Lite proxy instance: it owns the listener, the path of every
// connection (handshake, route match, status answer or backend dial, byte relay), the
// backend status fetch and probe, and live reconfiguration. For routes whose server
// sleeps it answers pings as asleep and holds logins while the target wakes
// (waking.go, wakelogin.go).
//
// It does not own protocol encoding (package wire), host matching (package route),
// config parsing (package config), the status cache (package status), backend
// selection (package strategy), the wake targets' state and engines (package wake
// and the engines the program wires in), how a backend is reached (package reach: address
// resolution, the guard for template-expanded addresses, the record of the proxy's
// own dials that refuses loops, the bytes a backend sees first) or moving a joined
// session's bytes (package relay): those are pure or self-contained and wired
// together here. Raising the process's open-files limit is the program's decision
// (cmd/gate); the instance only reads the limit.
//
// The path of one connection reads top to bottom in session.go.
package lite
