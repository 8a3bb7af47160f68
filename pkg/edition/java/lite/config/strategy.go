package config

import (
	"slices"
	"strings"
)

// Strategy is how a route orders its backends for each new connection.
type Strategy string

// The strategies a route may name. Sequential is the default, as in Gate.
const (
	Sequential       Strategy = "sequential"
	Random           Strategy = "random"
	RoundRobin       Strategy = "round-robin"
	LeastConnections Strategy = "least-connections"
	LowestLatency    Strategy = "lowest-latency"
	// P2C is power of two choices over latency and reported load, for
	// routes served by several proxy replicas.
	P2C Strategy = "p2c"
)

// Strategies lists every valid Strategy in documentation order.
func Strategies() []Strategy {
	return []Strategy{Sequential, Random, RoundRobin, LeastConnections, LowestLatency, P2C}
}

func (d *decoder) strategy(e entry, dst *Strategy) {
	n, ok := d.scalar(e, "a strategy name")
	if !ok {
		return
	}
	if n.Value == "" {
		*dst = Sequential // Gate treats an empty strategy as unset
		return
	}
	s := Strategy(n.Value)
	if !slices.Contains(Strategies(), s) {
		names := make([]string, 0, len(Strategies()))
		for _, v := range Strategies() {
			names = append(names, string(v))
		}
		d.invalid(e, "unknown %q (want %s)", truncate(n.Value), strings.Join(names, ", "))
		return
	}
	*dst = s
}
