package strategy

import (
	"testing"
	"time"
)

// BenchmarkOrder measures one connection's Order over 10 backends, the
// proxy's hot path, for every built-in strategy.
func BenchmarkOrder(b *testing.B) {
	bs := addrs(10)
	for _, name := range Names() {
		b.Run(string(name), func(b *testing.B) {
			m := NewManager(Options{Seed: 1})
			m.SetRoutes([]Route{{Key: "r", Strategy: name, Backends: bs}})
			for i, addr := range bs {
				m.ObserveStatus(addr, Report{RTT: time.Duration(10+i) * time.Millisecond}, nil)
			}
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
			m := NewManager(Options{Seed: 1})
			m.SetRoutes([]Route{{Key: "r", Strategy: name, Backends: bs}})
			for i, addr := range bs {
				m.ObserveStatus(addr, Report{RTT: time.Duration(10+i) * time.Millisecond}, nil)
			}
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
			m := NewManager(Options{Seed: 1})
			m.SetRoutes([]Route{{Key: "r", Strategy: name, Backends: bs}})
			for i, addr := range bs {
				m.ObserveStatus(addr, Report{RTT: time.Duration(10+i) * time.Millisecond, Online: 10 * i, Max: 100, HasPlayers: true}, nil)
			}
			dst := make([]string, 0, len(bs))
			b.ReportAllocs()
			for b.Loop() {
				dst = m.AppendOrder(dst[:0], "r", bs, IntentLogin)
			}
		})
	}
}
