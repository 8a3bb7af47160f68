package wire_test

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// utf16BE encodes s as a legacy client would.
func utf16BE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.BigEndian.AppendUint16(b, u)
	}
	return b
}

// pingHost builds a 1.6 MC|PingHost packet field by field.
func pingHost(proto byte, host string, port int32) []byte {
	data := []byte{proto}
	data = binary.BigEndian.AppendUint16(data, uint16(len(utf16.Encode([]rune(host)))))
	data = append(data, utf16BE(host)...)
	data = binary.BigEndian.AppendUint32(data, uint32(port))
	b := []byte{0xfe, 0x01, 0xfa, 0x00, 0x0b}
	b = append(b, utf16BE("MC|PingHost")...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(data)))
	return append(b, data...)
}

func TestParseLegacyPing(t *testing.T) {
	localhost := pingHost(74, "localhost", 25565)
	withData := func(n uint16) []byte {
		b := append([]byte(nil), localhost...)
		binary.BigEndian.PutUint16(b[27:], n)
		return b
	}
	beta := wire.LegacyPing{Kind: wire.LegacyBeta}
	v14 := wire.LegacyPing{Kind: wire.Legacy14}
	v16 := wire.LegacyPing{Kind: wire.Legacy16, Protocol: 74, Host: "localhost", Port: 25565}
	tests := []struct {
		name    string
		in      []byte
		eof     bool
		want    wire.LegacyPing
		wantN   int
		wantErr error
	}{
		{"beta ping still waiting", []byte{0xfe}, false, wire.LegacyPing{}, 0, wire.ErrIncomplete},
		{"beta ping after the wait", []byte{0xfe}, true, beta, 1, nil},
		{"1.4 ping still waiting", []byte{0xfe, 0x01}, false, wire.LegacyPing{}, 0, wire.ErrIncomplete},
		{"1.4 ping after the wait", []byte{0xfe, 0x01}, true, v14, 2, nil},
		{"1.6 ping for localhost", localhost, false, v16, len(localhost), nil},
		{"1.6 ping for localhost at eof", localhost, true, v16, len(localhost), nil},
		{"1.6 ping followed by more bytes", cat(localhost, []byte{0x00}), false, v16, len(localhost), nil},
		{"1.6 ping host keeps case and dot", pingHost(78, "Play.Example.com.", 25565), false,
			wire.LegacyPing{Kind: wire.Legacy16, Protocol: 78, Host: "Play.Example.com.", Port: 25565}, 36 + 2*17, nil},
		{"1.6 ping with emoji host", pingHost(78, "a😀", -1), false,
			wire.LegacyPing{Kind: wire.Legacy16, Protocol: 78, Host: "a😀", Port: -1}, 36 + 2*3, nil},
		{"1.6 ping with lone surrogate", cat(pingHost(78, "ab", 1)[:32], []byte{0xd8, 0x00, 0x00, 'b'}, []byte{0, 0, 0, 1}), false,
			wire.LegacyPing{Kind: wire.Legacy16, Protocol: 78, Host: "\uFFFDb", Port: 1}, 40, nil},
		{"1.6 ping cut short still waiting", localhost[:40], false, wire.LegacyPing{}, 0, wire.ErrIncomplete},
		{"1.6 ping cut short at eof answers as 1.4", localhost[:40], true, v14, 2, nil},
		{"garbage after fe 01 answers as 1.4 at once", []byte{0xfe, 0x01, 0x00}, false, v14, 2, nil},
		{"wrong channel name answers as 1.4", cat(localhost[:10], []byte{'X'}), false, v14, 2, nil},
		{"host length disagrees with data length", withData(26), false, v14, 2, nil},
		{"data length shorter than fixed fields", withData(6), false, v14, 2, nil},
		{"declared size above cap", withData(wire.MaxLegacyPingLen), false, wire.LegacyPing{}, 0, wire.ErrTooLarge},
		{"declared size above cap at eof", withData(0xffff)[:29], true, wire.LegacyPing{}, 0, wire.ErrTooLarge},
		{"nothing read yet", nil, false, wire.LegacyPing{}, 0, wire.ErrIncomplete},
		{"nothing read at eof", nil, true, wire.LegacyPing{}, 0, wire.ErrMalformed},
		{"not a legacy ping", []byte{0x10, 0x00}, false, wire.LegacyPing{}, 0, wire.ErrMalformed},
		{"fe followed by 02", []byte{0xfe, 0x02}, true, wire.LegacyPing{}, 0, wire.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkParsed(t, "ParseLegacyPing", result(wire.ParseLegacyPing(tt.in, tt.eof)), parsed[wire.LegacyPing]{tt.want, tt.wantN, tt.wantErr})
		})
	}
}

func TestParseLegacyPingAtCap(t *testing.T) {
	// 36 fixed bytes plus two per character: 238 characters is exactly the cap.
	host := strings.Repeat("a", (wire.MaxLegacyPingLen-36)/2)
	b := pingHost(78, host, 25565)
	if len(b) != wire.MaxLegacyPingLen {
		t.Fatalf("test packet is %d bytes, want %d", len(b), wire.MaxLegacyPingLen)
	}
	p, n, err := wire.ParseLegacyPing(b, false)
	if err != nil || p.Host != host || n != len(b) {
		t.Fatalf("ParseLegacyPing = %+v, %d, %v", p, n, err)
	}
	_, _, err = wire.ParseLegacyPing(pingHost(78, host+"a", 25565), false)
	checkErr(t, err, wire.ErrTooLarge)
}

// Every strict prefix of a 1.6 ping must wait while the client may still be
// sending, and must still be answered once it has stopped.
func TestParseLegacyPingPrefixes(t *testing.T) {
	b := pingHost(74, "mc.example.com", 25565)
	for i := 1; i < len(b); i++ {
		p, n, err := wire.ParseLegacyPing(b[:i], false)
		if err != wire.ErrIncomplete || p != (wire.LegacyPing{}) || n != 0 {
			t.Fatalf("prefix of %d bytes, waiting: %+v, %d, %v; want ErrIncomplete", i, p, n, err)
		}
		want := wire.LegacyPing{Kind: wire.Legacy14}
		if i == 1 {
			want.Kind = wire.LegacyBeta
		}
		p, n, err = wire.ParseLegacyPing(b[:i], true)
		if err != nil || p != want || n != min(i, 2) {
			t.Fatalf("prefix of %d bytes at eof: %+v, %d, %v; want %+v", i, p, n, err, want)
		}
	}
}

func TestLegacyKindString(t *testing.T) {
	tests := []struct {
		kind wire.LegacyKind
		want string
	}{
		{wire.LegacyBeta, "beta"},
		{wire.Legacy14, "1.4"},
		{wire.Legacy16, "1.6"},
		{wire.LegacyKind(9), "LegacyKind(9)"},
	}
	for _, tt := range tests {
		if got := tt.kind.String(); got != tt.want {
			t.Errorf("LegacyKind(%d).String() = %q, want %q", uint8(tt.kind), got, tt.want)
		}
	}
}
