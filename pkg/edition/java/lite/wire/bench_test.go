package wire_test

import (
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func BenchmarkParseHandshake(b *testing.B) {
	cases := []struct {
		name string
		in   []byte
	}{
		{"vanilla login with login start", loadHex(b, "login_1.20.4.hex")},
		{"forge FML2", loadHex(b, "login_forge_fml2.hex")},
		{"tcpshield", loadHex(b, "login_tcpshield.hex")},
		{"incomplete", loadHex(b, "login_1.20.4.hex")[:10]},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				_, _, _ = wire.ParseHandshake(c.in)
			}
		})
	}
}

func BenchmarkAppendHandshake(b *testing.B) {
	hs := wire.Handshake{Protocol: 765, Address: "mc.example.com\x00FML3\x00", Port: 25565, Intent: wire.IntentLogin}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = wire.AppendHandshake(buf[:0], hs)
	}
}

func BenchmarkCleanHost(b *testing.B) {
	cases := []struct{ name, addr string }{
		{"already clean", "mc.example.com"},
		{"forge suffix and port", "mc.example.com:25565\x00FML3\x00"},
		{"tcpshield suffix", "mc.example.com///203.0.113.7:51234///1700000000///c2lnbmF0dXJl"},
		{"upper case", "MC.Example.com"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = wire.CleanHost(c.addr)
			}
		})
	}
}

func BenchmarkParseLegacyPing(b *testing.B) {
	in := loadHex(b, "legacy_1.6.hex")
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = wire.ParseLegacyPing(in, false)
	}
}

func BenchmarkAppendStatusResponse(b *testing.B) {
	json := []byte(`{"version":{"name":"1.21.4","protocol":769},"players":{"max":100,"online":3},"description":{"text":"A Minecraft Server"}}`)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = wire.AppendStatusResponse(buf[:0], json)
	}
}
