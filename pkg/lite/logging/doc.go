// Package logging builds the proxy's logger: the logr API (the Gate ecosystem's)
// backed by log/slog, in text or JSON, with a level that can change at run time
// (--debug, or config.debug on reload) and rate limiting of repeated identical
// errors, so that one broken thing costs a few lines, not one per player.
//
// It owns log formatting and suppression only. What is logged, and at which level,
// is decided by the packages that log; this package never drops an info line.
package logging
