package config

import "strings"

// StatusMode is how a route answers server-list pings (`status:`).
type StatusMode string

// The status modes a route may name.
const (
	// StatusBackend answers with the first backend's response (cached),
	// as Gate Lite does. The default.
	StatusBackend StatusMode = "backend"
	// StatusAggregate answers with the first backend's response, but with
	// players online and max summed over the route's healthy backends, so
	// a balanced route shows as one server.
	StatusAggregate StatusMode = "aggregate"
)

// StatusModes lists every valid StatusMode, the default first.
func StatusModes() []StatusMode { return []StatusMode{StatusBackend, StatusAggregate} }

func (d *decoder) statusMode(e entry, dst *StatusMode) {
	n, ok := d.scalar(e, "a status mode")
	if !ok {
		return
	}
	var names []string
	for _, m := range StatusModes() {
		if string(m) == n.Value {
			*dst = m
			return
		}
		names = append(names, string(m))
	}
	d.invalid(e, "unknown %q (want %s)", truncate(n.Value), strings.Join(names, " or "))
}
