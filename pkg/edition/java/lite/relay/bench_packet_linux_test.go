//go:build linux

package relay

import (
	"io"
	"runtime"
	"sync/atomic"
	"testing"
)

// BenchmarkUpstreamPacket is one 64-byte packet from the player, echoed by the
// backend, with the client-to-backend direction parked between packets (the default)
// or on a worker of its own. Each op wakes that direction once; cpu-us/op is the whole
// process (player, relay, server), so the difference is what parking costs.
func BenchmarkUpstreamPacket(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts Options
	}{{"parked", Options{}}, {"own goroutine", Options{NoPark: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			var r Relay
			p := startPipe(b, &r, tc.opts)
			go func() {
				_, _ = io.Copy(p.server, p.server)
				_ = p.server.CloseWrite()
			}()
			msg, got := make([]byte, 64), make([]byte, 64)
			cpu := processCPU()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.player.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(p.player, got); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e3, "cpu-us/op")
			_ = p.player.CloseWrite()
			p.wait(b, 5*LingerAfterHalfClose)
		})
	}
}

// BenchmarkParkedPackets is many players at once, each a 64-byte packet echoed by its
// backend, through pipes whose directions park between packets. Run it with -cpu 1,2:
// the relay starts one poller per GOMAXPROCS (reported as pollers), and wake-ups
// spread over them.
func BenchmarkParkedPackets(b *testing.B) {
	const players = 64
	var r Relay
	ps := make([]*pipeUnderTest, players)
	for i := range ps {
		ps[i] = startPipe(b, &r, Options{})
		go func(p *pipeUnderTest) {
			_, _ = io.Copy(p.server, p.server)
			_ = p.server.CloseWrite()
		}(ps[i])
	}
	var next atomic.Int32
	cpu := processCPU()
	b.SetParallelism(players / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		p := ps[int(next.Add(1)-1)%players]
		msg, got := make([]byte, 64), make([]byte, 64)
		for pb.Next() {
			if _, err := p.player.Write(msg); err != nil {
				b.Error(err)
				return
			}
			if _, err := io.ReadFull(p.player, got); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e3, "cpu-us/op")
	b.ReportMetric(float64(r.Stats().Pollers), "pollers")
	for _, p := range ps {
		_ = p.player.CloseWrite()
		p.wait(b, 5*LingerAfterHalfClose)
	}
}
