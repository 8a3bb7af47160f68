package main

import (
	"slices"
	"sync"
	"time"
)

// latencies are the percentiles of one workload, in milliseconds.
type latencies struct {
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// summarize sorts d in place and returns its percentiles (nearest rank).
func summarize(d []time.Duration) latencies {
	if len(d) == 0 {
		return latencies{}
	}
	slices.Sort(d)
	return latencies{
		P50: ms(percentile(d, 50)),
		P90: ms(percentile(d, 90)),
		P99: ms(percentile(d, 99)),
		Max: ms(d[len(d)-1]),
	}
}

// percentile is the nearest-rank percentile of sorted d: the smallest value with at
// least p% of the values at or below it.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// errorCount counts a workload's failures and keeps the first one, so a result says
// what went wrong, not only how often.
type errorCount struct {
	mu    sync.Mutex
	n     int
	first string
}

func (e *errorCount) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.n == 0 {
		e.first = err.Error()
	}
	e.n++
}

func (e *errorCount) count() (int, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n, e.first
}
