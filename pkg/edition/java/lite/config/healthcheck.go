package config

import "time"

// HealthCheck configures active status-ping probes of a route's backends.
// `config.lite.healthCheck` is the default for every route; a route's own
// `healthCheck:` overrides it key by key.
type HealthCheck struct {
	// Enabled turns probing on. Default false: only passive health
	// (ejecting backends after failed dials) applies.
	Enabled bool
	// Interval between two probes of one backend. Default 10s; always > 0.
	Interval time.Duration
	// Timeout of one probe (dial and status exchange). Default 3s; always > 0
	// and less than Interval, so probes of a backend never overlap.
	Timeout time.Duration
	// Rise is how many probes in a row must succeed to mark a backend up.
	// Default 2; always >= 1.
	Rise int
	// Fall is how many probes in a row must fail to mark a backend down.
	// Default 3; always >= 1.
	Fall int
}

func defaultHealthCheck() HealthCheck {
	return HealthCheck{Interval: 10 * time.Second, Timeout: 3 * time.Second, Rise: 2, Fall: 3}
}

// decodeHealthCheck decodes `healthCheck:` over base and checks that the
// result is consistent.
func (d *decoder) decodeHealthCheck(e entry, base HealthCheck) HealthCheck {
	h := base
	ok := d.mapping(e, map[string]handler{
		"enabled":  func(f entry) { d.boolean(f, &h.Enabled) },
		"interval": func(f entry) { d.positive(f, &h.Interval) },
		"timeout":  func(f entry) { d.positive(f, &h.Timeout) },
		"rise":     func(f entry) { d.intField(f, 1, &h.Rise) },
		"fall":     func(f entry) { d.intField(f, 1, &h.Fall) },
	}, nil)
	if ok && h.Timeout >= h.Interval {
		d.errorf(e.key.Line, child(e.path, "timeout"), ErrInvalid,
			"timeout %s must be less than interval %s", h.Timeout, h.Interval)
	}
	return h
}
