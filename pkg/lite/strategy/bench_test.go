package strategy

import (
	"testing"
	"time"
)

// benchManager is a manager (seed 1) with route "r" of strategy name over bs,
// each backend reported once by report(i).
func benchManager(name Name, bs []string, report func(i int) Report) *Manager {
	m := NewManager(Options{Seed: 1})
	m.SetRoutes([]Route{{Key: "r", Strategy: name, Backends: bs}})
	for i, addr := range bs {
		m.ObserveStatus(addr, report(i), nil)
	}
	return m
}

// rtt reports backend i at 10+i ms.
func rtt(i int) Report { return Report{RTT: time.Duration(10+i) * time.Millisecond} }

// BenchmarkOrder measures one connection's Order over 10 backends, the
// proxy's hot path, for every built-in strategy.
func BenchmarkOrder(b *testing.B) {
	bs := addrs(10)
	for _, name := range Names() {
		b.Run(string(name), func(b *testing.B) {
			m := benchManager(name, bs, rtt)
			b.ReportAllocs()
			for b.Loop() {
				m.Order("r", bs, IntentLogin)
			}
		})
	}
}

// BenchmarkOrderParallel shows contention when many connections of one
// route are ordered at once.
func BenchmarkOrderParallel(b *testing.B) {
	bs := addrs(10)
	for _, name := range []Name{RoundRobin, LeastConnections, LowestLatency, P2C} {
		b.Run(string(name), func(b *testing.B) {
			m := benchManager(name, bs, rtt)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					m.Order("r", bs, IntentLogin)
				}
			})
		})
	}
}

func BenchmarkReserveRelease(b *testing.B) {
	m := NewManager(Options{Seed: 1})
	m.SetRoutes([]Route{{Key: "r", Backends: addrs(10)}})
	b.ReportAllocs()
	for b.Loop() {
		m.Reserve("b3").Release()
	}
}

// BenchmarkAppendOrder measures the allocation-free form the proxy uses,
// with reports and latency for every backend so p2c takes its full path.
func BenchmarkAppendOrder(b *testing.B) {
	bs := addrs(10)
	for _, name := range Names() {
		b.Run(string(name), func(b *testing.B) {
			m := benchManager(name, bs, func(i int) Report {
				r := rtt(i)
				r.Online, r.Max, r.HasPlayers = 10*i, 100, true
				return r
			})
			dst := make([]string, 0, len(bs))
			b.ReportAllocs()
			for b.Loop() {
				dst = m.AppendOrder(dst[:0], "r", bs, IntentLogin)
			}
		})
	}
}
