package wire_test

import (
	"bytes"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestParseString(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		max     int
		want    string
		wantN   int
		wantErr error
	}{
		{"empty string", []byte{0x00}, 10, "", 1, nil},
		{"host name", append([]byte{0x09}, "localhost"...), 255, "localhost", 10, nil},
		{"section sign is two bytes", append([]byte{0x05}, "§aHi"...), 5, "§aHi", 6, nil},
		{"exactly at cap", append([]byte{0x03}, "abc"...), 3, "abc", 4, nil},
		{"bytes after the string left alone", append([]byte{0x01}, "ab"...), 10, "a", 2, nil},
		{"no length yet", nil, 10, "", 0, wire.ErrIncomplete},
		{"length past what was read", append([]byte{0x05}, "ab"...), 10, "", 0, wire.ErrIncomplete},
		{"declared length over cap before bytes arrive", []byte{0x0b}, 10, "", 0, wire.ErrTooLarge},
		{"negative length", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 10, "", 0, wire.ErrMalformed},
		{"6th continuation byte in length", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 10, "", 0, wire.ErrMalformed},
		{"invalid utf-8", []byte{0x02, 0xc3, 0x28}, 10, "", 0, wire.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkParsed(t, "ParseString", result(wire.ParseString(tt.in, tt.max)), parsed[string]{tt.want, tt.wantN, tt.wantErr})
		})
	}
}

func TestAppendStringRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		s    string
		head []byte
	}{
		{"empty", "", []byte{0x00}},
		{"host with forge marker", "mc.example.com\x00FML3\x00", []byte{0x14}},
		{"200 bytes needs two length bytes", strings.Repeat("a", 200), []byte{0xc8, 0x01}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := wire.AppendString(nil, tt.s)
			if !bytes.HasPrefix(b, tt.head) || len(b) != len(tt.head)+len(tt.s) {
				t.Fatalf("AppendString(%q) = % x, want prefix % x and %d bytes", tt.s, b, tt.head, len(tt.head)+len(tt.s))
			}
			s, n, err := wire.ParseString(b, len(tt.s))
			if err != nil || s != tt.s || n != len(b) {
				t.Fatalf("ParseString(AppendString(%q)) = %q, %d, %v", tt.s, s, n, err)
			}
		})
	}
}
