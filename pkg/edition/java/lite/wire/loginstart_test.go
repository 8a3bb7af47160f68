package wire_test

import (
	"bytes"
	"errors"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

var (
	steveUUID = [16]byte{0x06, 0x9a, 0x79, 0xf4, 0x44, 0xe9, 0x47, 0x26, 0xa5, 0xbe, 0xfc, 0xa9, 0x0e, 0x38, 0xaa, 0xf5}
	itzgUUID  = [16]byte{0x5c, 0xdd, 0xfd, 0x26, 0xfc, 0x86, 0x49, 0x81, 0xb5, 0x2e, 0xc4, 0x2b, 0xb1, 0x0b, 0xfd, 0xef}
)

// loginStartFixtures are a handshake and its Login Start for every layout since 1.7
// (testdata/login_start_*.hex; the mc-router ones are that project's captures).
var loginStartFixtures = []struct {
	file string
	want wire.LoginStart
}{
	{"login_start_1.7.10.hex", wire.LoginStart{Name: "Notch"}},
	{"login_start_1.8.hex", wire.LoginStart{Name: "Steve"}},
	{"login_start_1.12.2.hex", wire.LoginStart{Name: "Alex_2"}},
	{"login_start_1.16.5.hex", wire.LoginStart{Name: "jeb_"}},
	{"login_start_mcrouter_1.18.2.hex", wire.LoginStart{Name: "itzg"}},
	{"login_start_1.19.hex", wire.LoginStart{Name: "Steve"}},
	{"login_start_1.19_signed.hex", wire.LoginStart{Name: "Steve"}},
	{"login_start_mcrouter_1.19.2_min_info.hex", wire.LoginStart{Name: "itzg"}},
	{"login_start_mcrouter_1.19.2_all_info.hex", wire.LoginStart{Name: "itzg", UUID: itzgUUID, HasUUID: true}},
	{"login_start_1.19.2_signed_uuid.hex", wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
	{"login_start_1.20.1.hex", wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
	{"login_start_1.20.1_no_uuid.hex", wire.LoginStart{Name: "Steve"}},
	{"login_1.20.4.hex", wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
	{"login_start_1.21.4.hex", wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
	{"login_start_mcrouter_1.21.5.hex", wire.LoginStart{Name: "itzg", UUID: itzgUUID, HasUUID: true}},
}

func TestLoginStartFixtures(t *testing.T) {
	for _, tt := range loginStartFixtures {
		t.Run(tt.file, func(t *testing.T) {
			b := loadHex(t, tt.file)
			hs, n, err := wire.ParseHandshake(b)
			if err != nil {
				t.Fatalf("handshake: %v", err)
			}
			ls, m, err := wire.ParseLoginStart(b[n:], hs.Protocol)
			if err != nil || ls != tt.want || m != len(b)-n {
				t.Fatalf("ParseLoginStart = %+v, %d, %v; want %+v, %d", ls, m, err, tt.want, len(b)-n)
			}
			for i := range m {
				if _, _, err := wire.ParseLoginStart(b[n:n+i], hs.Protocol); err != wire.ErrIncomplete {
					t.Fatalf("prefix %d/%d: %v, want ErrIncomplete", i, m, err)
				}
			}
		})
	}
}

// Every layout written by AppendLoginStart reads back the same, and a client of one
// version is read by its own layout only.
func TestLoginStartLayouts(t *testing.T) {
	sig := &wire.Signature{Expires: 1, PublicKey: bytes.Repeat([]byte{1}, 512), Signed: bytes.Repeat([]byte{2}, 4096)}
	tests := []struct {
		name     string
		protocol int32
		in       wire.LoginStart
		sig      *wire.Signature
		want     wire.LoginStart // what reads back: a UUID only where the layout has one
	}{
		{"1.7.2 name only", 4, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}, nil, wire.LoginStart{Name: "Steve"}},
		{"1.18.2 name only", 758, wire.LoginStart{Name: "Steve"}, nil, wire.LoginStart{Name: "Steve"}},
		{"1.19 largest signature data", 759, wire.LoginStart{Name: "abcdefghijklmnop"}, sig, wire.LoginStart{Name: "abcdefghijklmnop"}},
		{"1.19.1 signature and UUID", 760, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}, sig, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
		{"1.19.3 no UUID", 761, wire.LoginStart{Name: "Steve"}, nil, wire.LoginStart{Name: "Steve"}},
		{"1.20.2 UUID required", 764, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}, nil, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
		{"future release", 9999, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}, nil, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
		{"snapshot with UUID", 1<<30 | 200, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}, nil, wire.LoginStart{Name: "Steve", UUID: steveUUID, HasUUID: true}},
		{"non-ASCII name of 16 characters", 47, wire.LoginStart{Name: "ßßßßßßßßßßßßßßßß"}, nil, wire.LoginStart{Name: "ßßßßßßßßßßßßßßßß"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := wire.AppendLoginStart(nil, tt.protocol, tt.in, tt.sig)
			ls, n, err := wire.ParseLoginStart(b, tt.protocol)
			if err != nil || ls != tt.want || n != len(b) {
				t.Fatalf("ParseLoginStart = %+v, %d, %v; want %+v, %d", ls, n, err, tt.want, len(b))
			}
		})
	}
}

// frame builds a Login Start frame from raw payload bytes, for layouts the encoder
// would never write.
func frame(id int32, payload ...[]byte) []byte {
	return wire.AppendFrame(nil, id, bytes.Join(payload, nil))
}

func TestLoginStartRefusesMalformed(t *testing.T) {
	name := wire.AppendString(nil, "Steve")
	tests := []struct {
		name     string
		protocol int32
		in       []byte
		want     error
	}{
		{"wrong packet id", 47, frame(0x01, name), wire.ErrMalformed},
		{"name of 17 characters", 47, frame(0, wire.AppendString(nil, "abcdefghijklmnopq")), wire.ErrMalformed},
		{"name longer than 48 bytes", 47, frame(0, wire.AppendString(nil, string(bytes.Repeat([]byte("a"), 49)))), wire.ErrTooLarge},
		{"name not UTF-8", 47, frame(0, []byte{2, 0xff, 0xfe}), wire.ErrMalformed},
		{"name runs past the frame", 47, frame(0, []byte{9, 'a'}), wire.ErrMalformed},
		{"bytes after the name on 1.18.2", 758, frame(0, name, []byte{0}), wire.ErrMalformed},
		{"1.19 without the signature flag", 759, frame(0, name), wire.ErrMalformed},
		{"1.19 signature flag 2", 759, frame(0, name, []byte{2}), wire.ErrMalformed},
		{"1.19 public key above 512 bytes", 759, frame(0, name, []byte{1}, make([]byte, 8), []byte{0x81, 0x04}), wire.ErrTooLarge},
		{"1.19 truncated expiry", 759, frame(0, name, []byte{1, 0, 0}), wire.ErrMalformed},
		{"1.19.2 without the UUID flag", 760, frame(0, name, []byte{0}), wire.ErrMalformed},
		{"1.20.1 UUID cut short", 763, frame(0, name, []byte{1}, steveUUID[:8]), wire.ErrMalformed},
		{"1.20.2 without UUID", 764, frame(0, name), wire.ErrMalformed},
		{"1.20.2 with a byte after the UUID", 764, frame(0, name, steveUUID[:], []byte{0}), wire.ErrMalformed},
		{"declared length above the cap", 764, []byte{0xff, 0xff, 0x01}, wire.ErrTooLarge},
		{"empty frame", 764, []byte{0}, wire.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls, n, err := wire.ParseLoginStart(tt.in, tt.protocol)
			if !errors.Is(err, tt.want) || n != 0 || ls != (wire.LoginStart{}) {
				t.Fatalf("ParseLoginStart = %+v, %d, %v; want %v", ls, n, err, tt.want)
			}
		})
	}
}

func FuzzParseLoginStart(f *testing.F) {
	for _, fx := range loginStartFixtures {
		b := loadHex(f, fx.file)
		hs, n, err := wire.ParseHandshake(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[n:], hs.Protocol)
	}
	f.Fuzz(func(t *testing.T, b []byte, protocol int32) {
		ls, n, err := wire.ParseLoginStart(b, protocol)
		if err != nil {
			if !knownErr(err) || n != 0 || ls != (wire.LoginStart{}) {
				t.Fatalf("error %v with n=%d ls=%+v", err, n, ls)
			}
			return
		}
		if n <= 0 || n > len(b) {
			t.Fatalf("n = %d for %d bytes", n, len(b))
		}
		for i := range n {
			if _, _, err := wire.ParseLoginStart(b[:i], protocol); err != wire.ErrIncomplete {
				t.Fatalf("prefix %d/%d: %v, want ErrIncomplete", i, n, err)
			}
		}
		if protocol&(1<<30) != 0 || protocol >= wire.ProtocolSigned && protocol < wire.ProtocolOptionalUUID {
			return // snapshots are read leniently; 1.19's signature data is not kept
		}
		again, m, err := wire.ParseLoginStart(wire.AppendLoginStart(nil, protocol, ls, nil), protocol)
		if err != nil || again != ls || m == 0 {
			t.Fatalf("Append(Parse) re-parses to %+v, %v; want %+v", again, err, ls)
		}
	})
}

func BenchmarkParseLoginStart(b *testing.B) {
	for _, file := range []string{"login_start_1.8.hex", "login_1.20.4.hex", "login_start_1.19.2_signed_uuid.hex"} {
		in := loadHex(b, file)
		hs, n, err := wire.ParseHandshake(in)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(file, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = wire.ParseLoginStart(in[n:], hs.Protocol)
			}
		})
	}
}
