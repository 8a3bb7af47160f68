package wire_test

import (
	"bytes"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Handshakes as clients put them on the wire (testdata/*.hex), checked from
// the raw bytes to the routing key the proxy would use.
func TestHandshakeFixtures(t *testing.T) {
	tests := []struct {
		file   string
		want   wire.Handshake
		host   string // CleanHost of the address
		suffix string // SplitAddress suffix
		rest   string // bytes after the handshake, as hex
	}{
		{"login_1.20.4.hex",
			wire.Handshake{Protocol: 765, Address: "mc.example.com", Port: 25565, Intent: wire.IntentLogin},
			"mc.example.com", "",
			"17 00 05 53 74 65 76 65 06 9a 79 f4 44 e9 47 26 a5 be fc a9 0e 38 aa f5"},
		{"status_1.8.hex",
			wire.Handshake{Protocol: 47, Address: "localhost", Port: 25565, Intent: wire.IntentStatus},
			"localhost", "", "01 00"},
		{"login_forge_fml2.hex",
			wire.Handshake{Protocol: 754, Address: "play.example.com\x00FML2\x00", Port: 25565, Intent: wire.IntentLogin},
			"play.example.com", "\x00FML2\x00", ""},
		{"login_tcpshield.hex",
			wire.Handshake{Protocol: 769, Address: "Play.Example.com///203.0.113.7:51234///1700000000///c2lnbmF0dXJl", Port: 25565, Intent: wire.IntentLogin},
			"play.example.com", "///203.0.113.7:51234///1700000000///c2lnbmF0dXJl", ""},
		{"transfer_1.21.hex",
			wire.Handshake{Protocol: 767, Address: "lobby.example.com.", Port: 25566, Intent: wire.IntentTransfer},
			"lobby.example.com", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b := loadHex(t, tt.file)
			hs, n, err := wire.ParseHandshake(b)
			if err != nil || hs != tt.want {
				t.Fatalf("ParseHandshake = %+v, %v; want %+v", hs, err, tt.want)
			}
			if rest := unhex(t, tt.rest); !bytes.Equal(b[n:], rest) {
				t.Fatalf("bytes after the handshake = % x, want % x", b[n:], rest)
			}
			if !hs.IsLogin() != (tt.want.Intent == wire.IntentStatus) {
				t.Fatalf("IsLogin() = %v for intent %d", hs.IsLogin(), hs.Intent)
			}
			if got := wire.CleanHost(hs.Address); got != tt.host {
				t.Fatalf("CleanHost = %q, want %q", got, tt.host)
			}
			if _, suffix := wire.SplitAddress(hs.Address); suffix != tt.suffix {
				t.Fatalf("suffix = %q, want %q", suffix, tt.suffix)
			}
			if again := wire.AppendHandshake(nil, hs); !bytes.Equal(again, b[:n]) {
				t.Fatalf("AppendHandshake = % x, want the captured % x", again, b[:n])
			}
		})
	}
}

func TestLegacyPingFixtures(t *testing.T) {
	tests := []struct {
		file  string
		eof   bool // what the proxy knows when it parses
		want  wire.LegacyPing
		wantN int
	}{
		{"legacy_1.6.hex", false, wire.LegacyPing{Kind: wire.Legacy16, Protocol: 74, Host: "localhost", Port: 25565}, 54},
		{"legacy_1.4.hex", true, wire.LegacyPing{Kind: wire.Legacy14}, 2},
		{"legacy_beta.hex", true, wire.LegacyPing{Kind: wire.LegacyBeta}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, n, err := wire.ParseLegacyPing(loadHex(t, tt.file), tt.eof)
			if err != nil || p != tt.want || n != tt.wantN {
				t.Fatalf("ParseLegacyPing = %+v, %d, %v; want %+v, %d", p, n, err, tt.want, tt.wantN)
			}
		})
	}
}

func TestStatusResponseFixture(t *testing.T) {
	b := loadHex(t, "status_response_1.21.4.hex")
	id, payload, n, err := wire.ParseFrame(b, wire.MaxStatusResponseLen)
	if err != nil || id != wire.IDStatusRequest {
		t.Fatalf("ParseFrame = %#x, %v", id, err)
	}
	json, err := wire.ParseStatusResponse(payload)
	want := `{"version":{"name":"1.21.4","protocol":769},"players":{"max":100,"online":3},"description":{"text":"A Minecraft Server"},"enforcesSecureChat":false}`
	if err != nil || string(json) != want {
		t.Fatalf("ParseStatusResponse = %s, %v", json, err)
	}
	if again := wire.AppendStatusResponse(nil, json); !bytes.Equal(again, b[:n]) {
		t.Fatalf("AppendStatusResponse = % x, want % x", again, b[:n])
	}
	id, payload, m, err := wire.ParseFrame(b[n:], 16)
	if err != nil || id != wire.IDPing || n+m != len(b) {
		t.Fatalf("pong frame: %#x, %d, %v", id, m, err)
	}
	if v, err := wire.ParsePing(payload); err != nil || v != 0x18b2f1c3e5a {
		t.Fatalf("ParsePing = %#x, %v", v, err)
	}
}

// The proxy reads into a buffer and parses again after every read, so every
// strict prefix of a valid frame must answer ErrIncomplete and nothing else.
func TestStrictPrefixesAreIncomplete(t *testing.T) {
	frames := []struct {
		name  string
		frame []byte
	}{
		{"1.20.4 login handshake", firstFrame(t, loadHex(t, "login_1.20.4.hex"))},
		{"1.8 status handshake", firstFrame(t, loadHex(t, "status_1.8.hex"))},
		{"forge FML2 handshake", firstFrame(t, loadHex(t, "login_forge_fml2.hex"))},
		{"tcpshield handshake", firstFrame(t, loadHex(t, "login_tcpshield.hex"))},
		{"transfer handshake", firstFrame(t, loadHex(t, "transfer_1.21.hex"))},
		{"2 KiB floodgate handshake", wire.AppendHandshake(nil, wire.Handshake{
			Protocol: 766, Address: "mc.example.com\x00" + string(bytes.Repeat([]byte("Zmxvb2RnYXRl"), 170)), Port: 25565, Intent: 2})},
	}
	for _, tt := range frames {
		frame := tt.frame
		t.Run(tt.name, func(t *testing.T) {
			if _, n, err := wire.ParseHandshake(frame); err != nil || n != len(frame) {
				t.Fatalf("whole frame: n=%d err=%v", n, err)
			}
			for i := 0; i < len(frame); i++ {
				hs, n, err := wire.ParseHandshake(frame[:i])
				if err != wire.ErrIncomplete || hs != (wire.Handshake{}) || n != 0 {
					t.Fatalf("ParseHandshake(prefix %d/%d) = %+v, %d, %v; want ErrIncomplete", i, len(frame), hs, n, err)
				}
				id, payload, n, err := wire.ParseFrame(frame[:i], wire.MaxHandshakeLen)
				if err != wire.ErrIncomplete || id != 0 || payload != nil || n != 0 {
					t.Fatalf("ParseFrame(prefix %d/%d) = %d, % x, %d, %v; want ErrIncomplete", i, len(frame), id, payload, n, err)
				}
			}
		})
	}
	t.Run("status response", func(t *testing.T) {
		frame := loadHex(t, "status_response_1.21.4.hex")
		_, _, n, err := wire.ParseFrame(frame, wire.MaxStatusResponseLen)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if _, _, m, err := wire.ParseFrame(frame[:i], wire.MaxStatusResponseLen); err != wire.ErrIncomplete || m != 0 {
				t.Fatalf("ParseFrame(prefix %d/%d) = %d, %v; want ErrIncomplete", i, n, m, err)
			}
		}
	})
}

func firstFrame(t *testing.T, b []byte) []byte {
	t.Helper()
	_, _, n, err := wire.ParseFrame(b, wire.MaxHandshakeLen)
	if err != nil {
		t.Fatalf("fixture's first frame: %v", err)
	}
	return b[:n]
}
