package wire_test

import (
	"bytes"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestAppendVarInt(t *testing.T) {
	tests := []struct {
		name string
		v    int32
		want string
	}{
		{"zero", 0, "00"},
		{"largest one-byte value", 127, "7f"},
		{"smallest two-byte value", 128, "80 01"},
		{"protocol 765 (1.20.4)", 765, "fd 05"},
		{"default port 25565", 25565, "dd c7 01"},
		{"largest 3-byte frame length", 2097151, "ff ff 7f"},
		{"max int32", 2147483647, "ff ff ff ff 07"},
		{"minus one from pingers", -1, "ff ff ff ff 0f"},
		{"min int32", -2147483648, "80 80 80 80 08"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.want)
			got := wire.AppendVarInt([]byte{0xaa}, tt.v)
			if !bytes.Equal(got, append([]byte{0xaa}, want...)) {
				t.Fatalf("AppendVarInt(%d) = % x, want aa % x", tt.v, got, want)
			}
			if n := wire.VarIntLen(tt.v); n != len(want) {
				t.Fatalf("VarIntLen(%d) = %d, want %d", tt.v, n, len(want))
			}
			v, n, err := wire.ParseVarInt(want)
			if err != nil || v != tt.v || n != len(want) {
				t.Fatalf("ParseVarInt(% x) = %d, %d, %v; want %d, %d, nil", want, v, n, err, tt.v, len(want))
			}
		})
	}
}

func TestParseVarInt(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantV   int32
		wantN   int
		wantErr error
	}{
		{"empty input", "", 0, 0, wire.ErrIncomplete},
		{"continuation without next byte", "80", 0, 0, wire.ErrIncomplete},
		{"four continuation bytes", "80 80 80 80", 0, 0, wire.ErrIncomplete},
		{"5-byte varint", "ff ff ff ff 0f", -1, 5, nil},
		{"5th byte still continues", "80 80 80 80 80", 0, 0, wire.ErrMalformed},
		{"6th continuation byte", "80 80 80 80 80 00", 0, 0, wire.ErrMalformed},
		{"overflow bits in 5th byte dropped like vanilla", "ff ff ff ff 7f", -1, 5, nil},
		{"non-minimal zero", "80 00", 0, 2, nil},
		{"bytes after the varint left alone", "01 ff", 1, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkParsed(t, "ParseVarInt("+tt.in+")", result(wire.ParseVarInt(unhex(t, tt.in))), parsed[int32]{tt.wantV, tt.wantN, tt.wantErr})
		})
	}
}
