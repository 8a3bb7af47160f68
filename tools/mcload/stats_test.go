package main

import (
	"testing"
	"time"
)

func TestSummarizeNearestRank(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x) * time.Millisecond
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // reversed: summarize sorts
	}
	tests := []struct {
		name string
		in   []time.Duration
		want latencies
	}{
		{"empty", nil, latencies{}},
		{"one value", ms(7), latencies{P50: 7, P90: 7, P99: 7, Max: 7}},
		{"four values", ms(4, 1, 3, 2), latencies{P50: 2, P90: 4, P99: 4, Max: 4}},
		{"one to a hundred", ms(hundred...), latencies{P50: 50, P90: 90, P99: 99, Max: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize(tt.in); got != tt.want {
				t.Fatalf("summarize = %+v, want %+v", got, tt.want)
			}
		})
	}
}
