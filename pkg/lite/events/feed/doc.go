// Package feed turns what the proxy already reports into events (package events):
// lite's session events through its Observer, the routes in force after each apply,
// and the backends' health and the wake targets' phases, read on a tick and
// compared with the last reading.
//
// It owns no state of the proxy's and changes nothing in it; it does not deliver
// events (package events does).
package feed
