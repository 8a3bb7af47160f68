package wire_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// decodeKick checks the framing of a legacy kick packet and returns its text.
func decodeKick(t *testing.T, b []byte) string {
	t.Helper()
	if len(b) < 3 || b[0] != 0xff {
		t.Fatalf("kick packet % x does not start with ff and a length", b)
	}
	units := int(binary.BigEndian.Uint16(b[1:]))
	if len(b) != 3+2*units {
		t.Fatalf("kick packet is %d bytes, its length field says %d units", len(b), units)
	}
	u := make([]uint16, units)
	for i := range u {
		u[i] = binary.BigEndian.Uint16(b[3+2*i:])
	}
	return string(utf16.Decode(u))
}

func TestAppendLegacyKick(t *testing.T) {
	st := wire.LegacyStatus{Protocol: 74, Version: "1.6.2", MOTD: "A Minecraft Server", Online: 3, Max: 20}
	long := strings.Repeat("x", 300)
	tests := []struct {
		name string
		kind wire.LegacyKind
		st   wire.LegacyStatus
		want string
	}{
		{"beta reply", wire.LegacyBeta, st, "A Minecraft Server§3§20"},
		{"beta strips section signs from motd", wire.LegacyBeta,
			wire.LegacyStatus{MOTD: "§aGreen §lbold", Online: 0, Max: 1}, "aGreen lbold§0§1"},
		{"1.4 reply", wire.Legacy14, st, "§1\x0074\x001.6.2\x00A Minecraft Server\x003\x0020"},
		{"1.6 reply has the same format", wire.Legacy16, st, "§1\x0074\x001.6.2\x00A Minecraft Server\x003\x0020"},
		{"unknown kind gets the 1.4 format", wire.LegacyKind(7), st, "§1\x0074\x001.6.2\x00A Minecraft Server\x003\x0020"},
		{"NUL stripped from version and motd", wire.Legacy14,
			wire.LegacyStatus{Protocol: 78, Version: "1.6\x00.4", MOTD: "a\x00b", Online: 1, Max: 2}, "§1\x0078\x001.6.4\x00ab\x001\x002"},
		{"colour codes kept in 1.4 motd", wire.Legacy14,
			wire.LegacyStatus{Protocol: 61, Version: "1.5.2", MOTD: "§cRed", Online: -1, Max: 0}, "§1\x0061\x001.5.2\x00§cRed\x00-1\x000"},
		{"long motd cut to 256 units", wire.Legacy14,
			wire.LegacyStatus{Protocol: 74, Version: "1.6.2", MOTD: long, Online: 3, Max: 20},
			"§1\x0074\x001.6.2\x00" + long[:256-17] + "\x003\x0020"},
		{"long beta motd cut to 256 units", wire.LegacyBeta,
			wire.LegacyStatus{MOTD: long, Online: 3, Max: 20}, long[:256-5] + "§3§20"},
		{"long version cut and motd dropped", wire.Legacy14,
			wire.LegacyStatus{Protocol: 74, Version: long, MOTD: "motd", Online: 3, Max: 20},
			"§1\x0074\x00" + long[:256-12] + "\x00\x003\x0020"},
		{"cut never splits an emoji", wire.Legacy14,
			wire.LegacyStatus{Protocol: 74, Version: "1.6.2", MOTD: strings.Repeat("x", 256-18) + "😀", Online: 3, Max: 20},
			"§1\x0074\x001.6.2\x00" + strings.Repeat("x", 256-18) + "\x003\x0020"},
		{"cut drops a dangling section sign", wire.Legacy14,
			wire.LegacyStatus{Protocol: 74, Version: "1.6.2", MOTD: strings.Repeat("x", 256-18) + "§cmore", Online: 3, Max: 20},
			"§1\x0074\x001.6.2\x00" + strings.Repeat("x", 256-18) + "\x003\x0020"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := wire.AppendLegacyKick([]byte{0xaa}, tt.kind, tt.st)
			if b[0] != 0xaa {
				t.Fatalf("AppendLegacyKick overwrote dst: % x", b[:1])
			}
			got := decodeKick(t, b[1:])
			if got != tt.want {
				t.Fatalf("kick text = %q, want %q", got, tt.want)
			}
			if n := len(utf16.Encode([]rune(got))); n > wire.MaxLegacyKickUnits {
				t.Fatalf("kick text is %d units, above %d", n, wire.MaxLegacyKickUnits)
			}
		})
	}
}

func TestAppendLegacyKickBytes(t *testing.T) {
	// "§1\0" + "74\0" ... written out, to pin the exact wire bytes once.
	b := wire.AppendLegacyKick(nil, wire.Legacy16, wire.LegacyStatus{Protocol: 74, Version: "1", MOTD: "m", Online: 0, Max: 9})
	want := unhex(t, "ff 00 0d 00 a7 00 31 00 00 00 37 00 34 00 00 00 31 00 00 00 6d 00 00 00 30 00 00 00 39")
	if !bytes.Equal(b, want) {
		t.Fatalf("AppendLegacyKick = % x, want % x", b, want)
	}
}
