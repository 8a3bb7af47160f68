package wire_test

import (
	"bytes"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestParseFrame(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		max         int
		wantID      int32
		wantPayload string
		wantN       int
		wantErr     error
	}{
		{"status request", "01 00", 16, 0x00, "", 2, nil},
		{"ping", "09 01 00 00 01 8b 2f 1c 3e 5a", 16, 0x01, "00 00 01 8b 2f 1c 3e 5a", 10, nil},
		{"next frame in same segment", "01 00 09 01", 16, 0x00, "", 2, nil},
		{"non-minimal 3-byte length prefix", "81 80 00 00", 16, 0x00, "", 4, nil},
		{"frame exactly at cap", "03 00 aa bb", 3, 0x00, "aa bb", 4, nil},
		{"empty input", "", 16, 0, "", 0, wire.ErrIncomplete},
		{"length prefix cut mid-varint", "80", 16, 0, "", 0, wire.ErrIncomplete},
		{"body not all read", "05 00 aa", 16, 0, "", 0, wire.ErrIncomplete},
		{"largest 3-byte length still waits", "ff ff 7f", wire.MaxFrameLen, 0, "", 0, wire.ErrIncomplete},
		{"length prefix says 1 MiB", "80 80 40", 8192, 0, "", 0, wire.ErrTooLarge},
		{"one byte over cap", "04 00 aa bb cc", 3, 0, "", 0, wire.ErrTooLarge},
		{"4-byte length prefix", "80 80 80 01", 16, 0, "", 0, wire.ErrMalformed},
		{"3rd prefix byte still continues", "80 80 80", 16, 0, "", 0, wire.ErrMalformed},
		{"zero length frame", "00", 16, 0, "", 0, wire.ErrMalformed},
		{"packet id runs past frame end", "01 80 00", 16, 0, "", 0, wire.ErrMalformed},
		{"negative packet id", "05 ff ff ff ff 0f", 16, 0, "", 0, wire.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, payload, n, err := wire.ParseFrame(unhex(t, tt.in), tt.max)
			checkErr(t, err, tt.wantErr)
			if id != tt.wantID || !bytes.Equal(payload, unhex(t, tt.wantPayload)) || n != tt.wantN {
				t.Fatalf("ParseFrame = %#x, % x, %d; want %#x, %s, %d", id, payload, n, tt.wantID, tt.wantPayload, tt.wantN)
			}
			if tt.wantErr != nil && payload != nil {
				t.Fatalf("payload = % x on error, want nil", payload)
			}
		})
	}
}

func TestParseFramePayloadCannotClobberNextFrame(t *testing.T) {
	b := unhex(t, "03 00 aa bb 01 00")
	_, payload, n, err := wire.ParseFrame(b, 16)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(payload, 0xee)
	if !bytes.Equal(b[n:], []byte{0x01, 0x00}) {
		t.Fatalf("appending to payload changed the following bytes: % x", b[n:])
	}
}

func TestAppendFrame(t *testing.T) {
	tests := []struct {
		name    string
		id      int32
		payload []byte
		want    string
	}{
		{"empty status request", 0x00, nil, "01 00"},
		{"pong", 0x01, []byte{1, 2, 3, 4, 5, 6, 7, 8}, "09 01 01 02 03 04 05 06 07 08"},
		{"two-byte id", 0x80, []byte{0xaa}, "03 80 01 aa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wire.AppendFrame(nil, tt.id, tt.payload)
			if want := unhex(t, tt.want); !bytes.Equal(got, want) {
				t.Fatalf("AppendFrame = % x, want % x", got, want)
			}
			id, payload, n, err := wire.ParseFrame(got, 16)
			if err != nil || id != tt.id || !bytes.Equal(payload, tt.payload) || n != len(got) {
				t.Fatalf("ParseFrame(AppendFrame) = %#x, % x, %d, %v", id, payload, n, err)
			}
		})
	}
}
