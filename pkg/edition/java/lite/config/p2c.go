package config

import (
	"regexp"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// P2CConfig holds the route keys that tune strategy p2c (latencyWeight,
// staleAfter, saturation, peers, drainMotd, and slowStart for every ranking
// strategy; Drain is drainMotd, an RE2
// regular expression such as '(?i)maintenance'; empty for none). They are
// accepted on every route (the reference file shows them all); a route with
// another strategy warns when one differs from its default, since only the
// load-reading strategies read them. The fields, their meaning and defaults
// are strategy's; SlowStart has no key and stays zero (strategy's default).
type P2CConfig = strategy.P2CConfig

// defaultP2C is every key at strategy's default.
func defaultP2C() P2CConfig {
	return P2CConfig{LatencyWeight: strategy.DefaultLatencyWeight, StaleAfter: strategy.DefaultStaleAfter,
		Saturation: strategy.DefaultSaturation}
}

// isDefaultP2C reports whether every key has its default value.
func isDefaultP2C(p P2CConfig) bool {
	return p == defaultP2C()
}

// p2cHandlers decode the p2c keys of a route into p.
func (d *decoder) p2cHandlers(p *P2CConfig) map[string]handler {
	return map[string]handler{
		"latencyWeight": func(f entry) { d.positive(f, &p.LatencyWeight) },
		"staleAfter":    func(f entry) { d.positive(f, &p.StaleAfter) },
		"saturation":    func(f entry) { d.saturation(f, &p.Saturation) },
		"peers":         func(f entry) { d.intField(f, 0, &p.Peers) },
		"drainMotd":     func(f entry) { d.drainPattern(f, &p.Drain) },
		"slowStart":     func(f entry) { d.slowStart(f, &p.SlowStart) },
	}
}

func (d *decoder) saturation(e entry, dst *float64) {
	var v float64
	if !d.number(e, &v) {
		return
	}
	if v <= 0 || v > 1 {
		d.invalid(e, "%v out of range (want more than 0, at most 1)", v)
		return
	}
	*dst = v
}

func (d *decoder) drainPattern(e entry, dst **regexp.Regexp) {
	n, ok := d.scalar(e, "a regular expression")
	if !ok {
		return
	}
	if n.Value == "" {
		*dst = nil
		return
	}
	re, err := regexp.Compile(n.Value)
	if err != nil {
		d.invalid(e, "invalid regular expression %q: %v", truncate(n.Value), err)
		return
	}
	*dst = re
}

// slowStart reads the ramp's length; 0 turns slow start off (as HAProxy's
// slowstart 0 does), which the strategy spells negative.
func (d *decoder) slowStart(e entry, dst *time.Duration) {
	var v time.Duration
	switch {
	case !d.duration(e, &v):
	case v < 0:
		d.invalid(e, "must be at least 0 (0 turns slow start off), got %s", v)
	case v == 0:
		*dst = -1
	default:
		*dst = v
	}
}

// lintP2C warns about p2c settings a route cannot use.
func (d *decoder) lintP2C(r *Route, meta routeMeta) {
	if ss := r.P2C.SlowStart; ss != 0 && ss != strategy.DefaultSlowStart && !r.Strategy.SlowStarts() {
		d.warnf(meta.line, meta.path, "slowStart has no effect: strategy %s does not rank backends", r.Strategy)
	}
	loadKeys := r.P2C
	loadKeys.SlowStart = 0 // read by every ranking strategy, linted above
	if !r.Strategy.ReadsLoad() && !isDefaultP2C(loadKeys) {
		d.warnf(meta.line, meta.path, "latencyWeight, staleAfter, saturation, peers and drainMotd have no effect: strategy is %s, not p2c, least-loaded, weighted-random or lowest-latency", r.Strategy)
	}
	if len(r.Capacity) > 0 && !r.Strategy.ReadsLoad() && r.Status != StatusAggregate {
		d.warnf(meta.line, meta.path, "backend capacity has no effect: only strategies p2c, least-loaded, weighted-random, lowest-latency and status: aggregate use it")
	}
}
