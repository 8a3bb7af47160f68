package strategy

import (
	"errors"
	"fmt"
	"strings"
)

// Name identifies a strategy in configuration.
type Name string

// The built-in strategies.
const (
	Sequential       Name = "sequential"
	Random           Name = "random"
	RoundRobin       Name = "round-robin"
	LeastConnections Name = "least-connections"
	LowestLatency    Name = "lowest-latency"
	// P2C is power of two choices over latency and reported load, the
	// strategy for routes served by several proxy replicas.
	P2C Name = "p2c"
	// LeastLoaded puts the lowest load fraction (reports plus placements
	// since) first, for routes many replicas share.
	LeastLoaded Name = "least-loaded"
	// WeightedRandom draws backends in proportion to their headroom.
	WeightedRandom Name = "weighted-random"
	// Sticky keeps each player on their own backend: consistent hashing by
	// player with bounded loads.
	Sticky Name = "sticky"
)

// Default is the strategy of a route that names none, as in Gate Lite: the
// first usable backend in config order takes every player.
const Default = Sequential

// Names lists the built-in strategies in documentation order.
func Names() []Name {
	return []Name{Sequential, Random, RoundRobin, LeastConnections, LowestLatency, P2C, LeastLoaded, WeightedRandom, Sticky}
}

// ReadsLoad reports whether the strategy reads load (reports, capacity,
// staleAfter, saturation, peers, drainMotd): p2c, least-loaded,
// weighted-random, and lowest-latency for its capacity guard.
func (n Name) ReadsLoad() bool {
	return n == P2C || n == LeastLoaded || n == WeightedRandom || n == LowestLatency
}

// SlowStarts reports whether a backend that joins or recovers ramps up under
// the strategy (P2CConfig.SlowStart): every built-in strategy that ranks, by
// load, players or latency. Sequential's order is a priority on purpose, random
// and round-robin give every backend its equal turn anyway, and sticky's
// players belong where their hash puts them. A custom strategy owns its order.
func (n Name) SlowStarts() bool {
	switch n {
	case LeastConnections, LowestLatency, P2C, LeastLoaded, WeightedRandom:
		return true
	}
	return false
}

// ErrUnknownName is returned (wrapped) by ParseName for a name that is not built in.
var ErrUnknownName = errors.New("unknown strategy")

// ParseName validates a configured strategy name. The empty string means
// Default, so that an omitted key behaves like Gate Lite.
func ParseName(s string) (Name, error) {
	if s == "" {
		return Default, nil
	}
	for _, n := range Names() {
		if string(n) == s {
			return n, nil
		}
	}
	return "", fmt.Errorf("%w %q (want %s)", ErrUnknownName, s, NameList())
}

// NameList is Names joined with ", ", for messages about a wrong name.
func NameList() string {
	allowed := make([]string, 0, len(Names()))
	for _, n := range Names() {
		allowed = append(allowed, string(n))
	}
	return strings.Join(allowed, ", ")
}

// Intent is why a connection asks for an order. Status pings see the same
// order as logins but never advance round-robin and never count as players.
type Intent uint8

const (
	// IntentLogin covers login and transfer handshakes: a player will join.
	IntentLogin Intent = iota
	// IntentStatus is a server-list ping.
	IntentStatus
)

// String names the intent for logs.
func (i Intent) String() string {
	if i == IntentStatus {
		return "status"
	}
	return "login"
}
