package admission

import (
	"net/netip"
	"testing"
)

func benchConfig() Config {
	l := Limit{Enabled: true, Rate: 1e9, Burst: 1 << 30, MaxEntries: 1000}
	return Config{Connections: l, Logins: l, Status: l, MaxConnections: 10000, MaxConnectionsPerAddr: 32}
}

// A returning player: known block, every check on.
func BenchmarkAdmitKnownAddress(b *testing.B) {
	benchAdmit(b, New(benchConfig(), Options{}), true)
}

// benchAdmit admits one known address over and over, each ticket released;
// login also asks for a login slot, as a player's connection does.
func benchAdmit(b *testing.B, c *Controller, login bool) {
	a := netip.MustParseAddr("203.0.113.7")
	b.ReportAllocs()
	for b.Loop() {
		tk, err := c.Admit(a)
		if err != nil {
			b.Fatal(err)
		}
		if login {
			_ = c.AdmitIntent(a, IntentLogin)
		}
		tk.Release()
	}
}

// A spray: every connection from a new /64, the table full.
func BenchmarkAdmitSpray(b *testing.B) {
	cfg := benchConfig()
	cfg.Connections = Limit{Enabled: true, Rate: 1, Burst: 1, MaxEntries: 1000}
	c := New(cfg, Options{})
	var raw [16]byte
	raw[0], raw[1] = 0x20, 0x01
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		raw[4], raw[5], raw[6], raw[7] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
		tk, _ := c.Admit(netip.AddrFrom16(raw))
		tk.Release()
	}
}

// A deny list of 10 000 /24s and /32s.
func BenchmarkDenyList10k(b *testing.B) {
	var deny []netip.Prefix
	for i := range 10_000 {
		bits := 24
		if i%2 == 0 {
			bits = 32
		}
		deny = append(deny, netip.PrefixFrom(netip.AddrFrom4([4]byte{100, byte(i >> 8), byte(i), 1}), bits).Masked())
	}
	benchAdmit(b, New(Config{Deny: deny}, Options{}), false)
}
