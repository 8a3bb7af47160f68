package strategy

import "time"

// Defaults of HealthCheck, applied to fields left at zero.
const (
	DefaultHealthInterval = 10 * time.Second
	DefaultHealthTimeout  = 3 * time.Second
	DefaultHealthRise     = 2
	DefaultHealthFall     = 3
)

// DefaultHealthTimeoutFor is the probe timeout when none is configured:
// DefaultHealthTimeout, or half the interval when that is shorter, so that a
// probe always ends before the next one of the same backend is due.
func DefaultHealthTimeoutFor(interval time.Duration) time.Duration {
	return min(DefaultHealthTimeout, interval/2)
}

// HealthCheck configures active status-ping probes for a route's backends.
// Passive ejection on dial failures is always on and needs no config.
type HealthCheck struct {
	// Enabled turns periodic probes on. Default false.
	Enabled bool
	// Interval between two probes of one backend, jittered by ±10%.
	// Zero means 10s.
	Interval time.Duration
	// Timeout of one probe. Zero means DefaultHealthTimeoutFor(Interval).
	Timeout time.Duration
	// Rise is how many consecutive successful probes bring a down backend
	// back. Zero means 2.
	Rise int
	// Fall is how many consecutive failed probes mark a backend down.
	// Zero means 3.
	Fall int
}

// WithDefaults returns h with every zero (or negative) field set to its default.
func (h HealthCheck) WithDefaults() HealthCheck {
	if h.Interval <= 0 {
		h.Interval = DefaultHealthInterval
	}
	if h.Timeout <= 0 {
		h.Timeout = DefaultHealthTimeoutFor(h.Interval)
	}
	if h.Rise <= 0 {
		h.Rise = DefaultHealthRise
	}
	if h.Fall <= 0 {
		h.Fall = DefaultHealthFall
	}
	return h
}
