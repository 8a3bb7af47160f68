package strategy

import (
	"regexp"
	"time"
)

// Defaults of P2CConfig, applied to fields left at zero.
const (
	DefaultLatencyWeight = 250 * time.Millisecond
	DefaultStaleAfter    = 30 * time.Second
	DefaultSaturation    = 0.9
	DefaultSlowStart     = 60 * time.Second
)

// SlowStartFloor is the share of its fair chance that a ramping backend
// gets at the start of its slow start, so it is never starved.
const SlowStartFloor = 0.1

// P2CConfig tunes the p2c strategy of one route.
type P2CConfig struct {
	// LatencyWeight is what one unit of load (a full backend) adds to the
	// score, so scores stay milliseconds. Zero means 250ms.
	LatencyWeight time.Duration
	// StaleAfter is the age from which a load report fades linearly to
	// neutral (0.5), reached at 3x StaleAfter. Zero means 30s.
	StaleAfter time.Duration
	// Saturation is the load (0..1] at or above which a backend takes no
	// new players while others have room. Zero means 0.9.
	Saturation float64
	// Peers is how many proxy replicas place players on these backends;
	// each placement since the last report is charged this many times.
	// Zero estimates it from the reports (players online over the players
	// this instance placed).
	Peers int
	// SlowStart is how long a backend that joins the route or recovers
	// ramps up from 10% of its fair chance to all of it. Zero means 60s;
	// negative turns slow start off.
	SlowStart time.Duration
	// Drain marks a backend whose reported MOTD matches it as draining: it
	// takes no new players while others can. Nil means none. A backend
	// listed by several routes uses the first route's pattern that is set.
	Drain *regexp.Regexp
}

// WithDefaults returns p with every zero field set to its default.
func (p P2CConfig) WithDefaults() P2CConfig {
	if p.LatencyWeight <= 0 {
		p.LatencyWeight = DefaultLatencyWeight
	}
	if p.StaleAfter <= 0 {
		p.StaleAfter = DefaultStaleAfter
	}
	if p.Saturation <= 0 || p.Saturation > 1 {
		p.Saturation = DefaultSaturation
	}
	if p.Peers < 0 {
		p.Peers = 0
	}
	if p.SlowStart == 0 {
		p.SlowStart = DefaultSlowStart
	}
	return p
}
