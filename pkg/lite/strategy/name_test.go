package strategy

import (
	"errors"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	tests := []struct {
		name, in string
		want     Name
		wantErr  bool
	}{
		{"omitted key is sequential", "", Sequential, false},
		{"sequential", "sequential", Sequential, false},
		{"random", "random", Random, false},
		{"round-robin", "round-robin", RoundRobin, false},
		{"least-connections", "least-connections", LeastConnections, false},
		{"lowest-latency", "lowest-latency", LowestLatency, false},
		{"p2c", "p2c", P2C, false},
		{"least-loaded", "least-loaded", LeastLoaded, false},
		{"weighted-random", "weighted-random", WeightedRandom, false},
		{"sticky", "sticky", Sticky, false},
		{"underscore typo", "round_robin", "", true},
		{"upper case", "Random", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseName(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrUnknownName) {
					t.Fatalf("ParseName(%q) error = %v, want ErrUnknownName", tt.in, err)
				}
				const allowed = "(want sequential, random, round-robin, least-connections, lowest-latency, p2c, least-loaded, weighted-random, sticky)"
				if !strings.Contains(err.Error(), allowed) {
					t.Fatalf("error %q does not list the allowed names", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
