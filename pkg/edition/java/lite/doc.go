// Package lite is the Lite proxy instance: it owns the listener, the path of every
// connection (handshake, route match, status answer or backend dial, byte relay), the
// backend status fetch and probe, and live reconfiguration.
//
// It does not own protocol encoding (package wire), host matching (package route),
// config parsing (package config), the status cache (package status), backend
// selection (package strategy) or moving a joined session's bytes (package relay):
// those are pure or self-contained and wired together here.
//
// The path of one connection reads top to bottom in session.go.
package lite
