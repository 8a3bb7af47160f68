package lite

import (
	"net"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// BenchmarkAdmit is what admission adds to every connection before its handshake:
// deadlines, the trust check, the quotas and caps, the first read (from memory here).
func BenchmarkAdmit(b *testing.B) {
	hs := localhostHandshake
	for _, tc := range []struct {
		name   string
		header bool
	}{{"direct player", false}, {"player behind a PROXY v2 header", true}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := config.Default()
			cfg.ProxyProtocol = tc.header
			cfg.Quota.Connections.Rate, cfg.Quota.Connections.Burst = 1e9, 1<<30
			data := hs
			remote := &net.TCPAddr{IP: net.IPv4(203, 0, 113, 9), Port: 4000}
			if tc.header {
				data = append(proxyHeader(b, 2, "203.0.113.9", false), hs...)
				remote = &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 4000}
			}
			l := admitter(cfg)
			snap := &snapshot{cfg: cfg}
			c := &scriptedConn{data: data, chunk: len(data), remote: remote}
			b.ReportAllocs()
			for b.Loop() {
				c.pos = 0
				s := admitSession(l, snap, c)
				if err := s.admit(); err != nil {
					b.Fatal(err)
				}
				s.ticket.Release()
			}
		})
	}
}
