package lite

import (
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// benchConfig is a realistic network: exact hosts, a wildcard, a template and one
// route per strategy, each with several backends.
const benchConfig = `
config:
  lite:
    enabled: true
    routes:
      - host: [lobby.example.com, hub.example.com]
        backend: [10.0.0.1:25565, 10.0.0.2:25565, 10.0.0.3:25565, 10.0.0.4:25565]
      - host: '*.survival.example.com'
        backend: [10.0.1.1:25565, 10.0.1.2:25565, 10.0.1.3:25565, 10.0.1.4:25565]
        strategy: random
      - host: rr.example.com
        backend: [10.0.2.1:25565, 10.0.2.2:25565, 10.0.2.3:25565, 10.0.2.4:25565]
        strategy: round-robin
      - host: lc.example.com
        backend: [10.0.3.1:25565, 10.0.3.2:25565, 10.0.3.3:25565, 10.0.3.4:25565]
        strategy: least-connections
      - host: ll.example.com
        backend: [10.0.4.1:25565, 10.0.4.2:25565, 10.0.4.3:25565, 10.0.4.4:25565]
        strategy: lowest-latency
      - host: '*.dev.example.com'
        backend: '$1.internal:25565'
`

// BenchmarkHotPath measures what every connection pays before it dials: parse the
// handshake, clean the host, match a route, order the backends. Matching and ordering
// must stay allocation-free; the parse allocates once, for the address string.
func BenchmarkHotPath(b *testing.B) {
	l := newTestLite(b, benchConfig)
	snap := l.snap.Load()
	raw := wire.AppendHandshake(nil, wire.Handshake{Protocol: 769, Address: "lobby.example.com\x00FML3\x00", Port: 25565, Intent: wire.IntentLogin})

	b.Run("parse handshake", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := wire.ParseHandshake(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct{ name, host string }{
		{"clean host forge suffix", "lobby.example.com\x00FML3\x00"},
		{"clean host tcpshield and port", "lobby.example.com///1.2.3.4:5///1700000000///sig"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = wire.CleanHost(tc.host)
			}
		})
	}
	for _, tc := range []struct{ name, host string }{
		{"match exact", "hub.example.com"},
		{"match wildcard", "eu1.survival.example.com"},
		{"match miss", "nothing.example.org"},
		// A template fills $1 into a new backend address: one string per connection.
		{"match template", "alice.dev.example.com"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = snap.table.Match(tc.host)
			}
		})
	}
	benchOrders(b, l)
	b.Run("whole path", func(b *testing.B) {
		var s session
		b.ReportAllocs()
		for b.Loop() {
			hs, _, err := wire.ParseHandshake(raw)
			if err != nil {
				b.Fatal(err)
			}
			m, ok := snap.table.Match(wire.CleanHost(hs.Address))
			if !ok {
				b.Fatal("no route")
			}
			rt := snap.routes[m.Route]
			s.order = l.mgr.AppendOrder(s.orderBuf[:0], rt.key, m.Backends, strategy.IntentLogin)
		}
	})
}

// benchOrders orders each strategy's route as serveLogin does, into the session's
// own backing array.
func benchOrders(b *testing.B, l *Lite) {
	for _, host := range []string{"lobby.example.com", "x.survival.example.com", "rr.example.com", "lc.example.com", "ll.example.com"} {
		snap := l.snap.Load()
		m, ok := snap.table.Match(host)
		if !ok {
			b.Fatalf("no route for %s", host)
		}
		rt := snap.routes[m.Route]
		name := rt.cfg.Strategy
		if name == "" {
			name = "sequential"
		}
		b.Run("order "+string(name), func(b *testing.B) {
			var s session
			b.ReportAllocs()
			for b.Loop() {
				s.order = l.mgr.AppendOrder(s.orderBuf[:0], rt.key, m.Backends, strategy.IntentLogin)
			}
			if len(s.order) != len(m.Backends) {
				b.Fatalf("order has %d backends, want %d", len(s.order), len(m.Backends))
			}
		})
	}
}
