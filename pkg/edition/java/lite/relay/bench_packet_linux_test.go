//go:build linux

package relay

import (
	"io"
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
