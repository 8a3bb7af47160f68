package wire_test

import (
	"bytes"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestAppendStatusRequest(t *testing.T) {
	if got := wire.AppendStatusRequest(nil); !bytes.Equal(got, []byte{0x01, 0x00}) {
		t.Fatalf("AppendStatusRequest = % x, want 01 00", got)
	}
}

func TestStatusResponseRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		json string
		head string // length prefix, id, string length
	}{
		{"short motd", `{"description":"hi"}`, "16 00 14"},
		{"json needing a 2-byte string length", `{"description":"` + strings.Repeat("x", 200) + `"}`, "dd 01 00 da 01"},
		{"largest json allowed", strings.Repeat("a", wire.MaxStatusJSON), "80 80 08 00 fc ff 07"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := wire.AppendStatusResponse(nil, []byte(tt.json))
			if head := unhex(t, tt.head); !bytes.HasPrefix(b, head) || len(b) != len(head)+len(tt.json) {
				t.Fatalf("AppendStatusResponse starts % x (%d bytes), want % x and %d bytes",
					b[:min(len(b), 8)], len(b), head, len(head)+len(tt.json))
			}
			id, payload, n, err := wire.ParseFrame(b, wire.MaxStatusResponseLen)
			if err != nil || id != wire.IDStatusRequest || n != len(b) {
				t.Fatalf("ParseFrame = %#x, %d, %v", id, n, err)
			}
			json, err := wire.ParseStatusResponse(payload)
			if err != nil || string(json) != tt.json {
				t.Fatalf("ParseStatusResponse = %.40q, %v; want %.40q", json, err, tt.json)
			}
		})
	}
}

func TestParseStatusResponse(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
		want    string
		wantErr error
	}{
		{"json with mod fields passes through", wire.AppendString(nil, `{"forgeData":{"x":1}}`), `{"forgeData":{"x":1}}`, nil},
		{"bytes are not re-encoded", []byte{0x02, 0xff, 0xfe}, "\xff\xfe", nil},
		{"empty payload", nil, "", wire.ErrMalformed},
		{"json cut short", []byte{0x05, '{', '}'}, "", wire.ErrMalformed},
		{"bytes after the json are ignored (Gate #297)", []byte{0x02, '{', '}', 0x00}, "{}", nil},
		{"a mod's second string after the json", append(wire.AppendString(nil, `{"a":1}`), wire.AppendString(nil, `{"projectId":925200}`)...), `{"a":1}`, nil},
		{"declared length over cap", wire.AppendVarInt(nil, wire.MaxStatusJSON+1), "", wire.ErrTooLarge},
		{"negative length", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, "", wire.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			json, err := wire.ParseStatusResponse(tt.payload)
			if checkErr(t, err, tt.wantErr) && string(json) != tt.want {
				t.Fatalf("ParseStatusResponse = %q, want %q", json, tt.want)
			}
			if tt.wantErr != nil && json != nil {
				t.Fatalf("json = %q on error, want nil", json)
			}
		})
	}
}

func TestParseStatusResponseReturnsACopy(t *testing.T) {
	payload := wire.AppendString(nil, `{"description":"a"}`)
	json, err := wire.ParseStatusResponse(payload)
	if err != nil {
		t.Fatal(err)
	}
	for i := range payload {
		payload[i] = 0
	}
	if string(json) != `{"description":"a"}` {
		t.Fatalf("json changed with the read buffer: %q", json)
	}
}

func TestPing(t *testing.T) {
	tests := []struct {
		name string
		v    int64
		want string
	}{
		{"millisecond timestamp", 0x18b2f1c3e5a, "09 01 00 00 01 8b 2f 1c 3e 5a"},
		{"zero", 0, "09 01 00 00 00 00 00 00 00 00"},
		{"negative value", -2, "09 01 ff ff ff ff ff ff ff fe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := wire.AppendPing(nil, tt.v)
			if want := unhex(t, tt.want); !bytes.Equal(b, want) {
				t.Fatalf("AppendPing(%d) = % x, want % x", tt.v, b, want)
			}
			id, payload, _, err := wire.ParseFrame(b, 16)
			if err != nil || id != wire.IDPing {
				t.Fatalf("ParseFrame = %#x, %v", id, err)
			}
			v, err := wire.ParsePing(payload)
			if err != nil || v != tt.v {
				t.Fatalf("ParsePing = %d, %v; want %d", v, err, tt.v)
			}
		})
	}
}

func TestParsePingRejectsWrongSize(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
	}{
		{"empty", nil},
		{"seven bytes", make([]byte, 7)},
		{"nine bytes", make([]byte, 9)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := wire.ParsePing(tt.payload)
			checkErr(t, err, wire.ErrMalformed)
			if v != 0 {
				t.Fatalf("ParsePing = %d on error, want 0", v)
			}
		})
	}
}

func TestAppendLoginDisconnect(t *testing.T) {
	json := `{"text":"No server for this address","color":"red"}`
	b := wire.AppendLoginDisconnect([]byte{0xaa}, []byte(json))
	want := cat([]byte{0xaa, byte(2 + len(json)), 0x00, byte(len(json))}, []byte(json))
	if !bytes.Equal(b, want) {
		t.Fatalf("AppendLoginDisconnect = % x, want % x", b, want)
	}
	id, payload, n, err := wire.ParseFrame(b[1:], 256)
	if err != nil || id != wire.IDLoginDisconnect || n != len(b)-1 {
		t.Fatalf("ParseFrame = %#x, %d, %v", id, n, err)
	}
	if s, _, err := wire.ParseString(payload, 256); err != nil || s != json {
		t.Fatalf("ParseString = %q, %v", s, err)
	}
}
