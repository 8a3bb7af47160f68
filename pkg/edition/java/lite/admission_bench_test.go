package lite

import (
	"net"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// BenchmarkAdmit is what admission adds to every connection before its handshake:
// deadlines, the trust check, the quotas and caps, the first read (from memory here).
func BenchmarkAdmit(b *testing.B) {
	hs := []byte{0x10, 0x00, 0xFD, 0x05, 0x09, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't', 0x63, 0xDD, 0x02}
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
				data = append(v2HeaderFrom(b, "203.0.113.9"), hs...)
				remote = &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 4000}
			}
			l := &Lite{log: logr.Discard(), adm: admission.New(cfg.Quota.Config, admission.Options{})}
			snap := &snapshot{cfg: cfg}
			c := &scriptedConn{data: data, chunk: len(data), remote: remote}
			b.ReportAllocs()
			for b.Loop() {
				c.pos = 0
				s := session{conn: conn{l: l, client: c, clientAddr: remote, start: time.Now()}, snap: snap}
				if err := s.admit(); err != nil {
					b.Fatal(err)
				}
				s.ticket.Release()
			}
		})
	}
}

func v2HeaderFrom(b *testing.B, src string) []byte {
	h, err := proxyproto.HeaderProxyFromAddrs(2, &net.TCPAddr{IP: net.ParseIP(src), Port: 4000}, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: int(wire.DefaultPort)}).Format()
	if err != nil {
		b.Fatal(err)
	}
	return h
}
