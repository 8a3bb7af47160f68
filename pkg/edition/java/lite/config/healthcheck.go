package config

import "go.minekube.com/gate/pkg/lite/strategy"

// HealthCheck configures active status-ping probes of a route's backends.
// `config.lite.healthCheck` is the default for every route; a route's own
// `healthCheck:` overrides it key by key. In a loaded Config every field is
// resolved: the defaults are strategy's (HealthCheck.WithDefaults), and
// Timeout is always less than Interval, so probes of a backend never overlap.
type HealthCheck = strategy.HealthCheck

// decodeHealthCheck decodes `healthCheck:` over base, which holds the keys
// written at the level above (zero where unset), and returns what was
// written with the keys of this level and the resolved result. Keeping the
// written form lets an unset timeout follow the interval of each level.
func (d *decoder) decodeHealthCheck(e entry, base HealthCheck) (written, resolved HealthCheck) {
	h := base
	ok := d.mapping(e, map[string]handler{
		"enabled":  func(f entry) { d.boolean(f, &h.Enabled) },
		"interval": func(f entry) { d.positive(f, &h.Interval) },
		"timeout":  func(f entry) { d.positive(f, &h.Timeout) },
		"rise":     func(f entry) { d.intField(f, 1, &h.Rise) },
		"fall":     func(f entry) { d.intField(f, 1, &h.Fall) },
	}, nil)
	r := h.WithDefaults()
	switch {
	case !ok:
	case r.Timeout <= 0:
		d.errorf(e.key.Line, child(e.path, "interval"), ErrInvalid,
			"interval %s is too short to leave room for a probe timeout", r.Interval)
	case r.Timeout >= r.Interval:
		d.errorf(e.key.Line, child(e.path, "timeout"), ErrInvalid,
			"timeout %s must be less than interval %s", r.Timeout, r.Interval)
	}
	return h, r
}
