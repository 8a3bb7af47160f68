package wire_test

import (
	"bytes"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// overlongID is a handshake whose packet id is the two-byte VarInt 80 00 (zero).
var overlongID = func() []byte {
	body := append([]byte{0x80, 0x00}, handshakeBody(765, "a", 25565, 2)...)
	return append(wire.AppendVarInt(nil, int32(len(body))), body...)
}()

var floodgateAddress = "play.example.com\x00^Floodgate^" + strings.Repeat("QUJDREVGR0g=", 80)

// handshakeCases are handshakes clients send, each parsed from a frame of its own.
var handshakeCases = []struct {
	name string
	want wire.Handshake
}{
	{"vanilla 1.20.4 login", wire.Handshake{Protocol: 765, Address: "mc.example.com", Port: 25565, Intent: 2}},
	{"forge FML2 suffix", wire.Handshake{Protocol: 754, Address: "mc.example.com\x00FML2\x00", Port: 25565, Intent: 2}},
	{"forge FML3 suffix", wire.Handshake{Protocol: 763, Address: "mc.example.com\x00FML3\x00", Port: 25565, Intent: 2}},
	{"tcpshield suffix", wire.Handshake{Protocol: 769, Address: "mc.example.com///198.51.100.4:50000///1700000000///sig", Port: 25565, Intent: 2}},
	{"floodgate data of about 1 KiB", wire.Handshake{Protocol: 766, Address: floodgateAddress, Port: 19132, Intent: 2}},
	{"transfer intent", wire.Handshake{Protocol: 767, Address: "lobby.example.com", Port: 25566, Intent: 3}},
	{"status from a pinger with protocol -1", wire.Handshake{Protocol: -1, Address: "localhost", Port: 25565, Intent: 1}},
	{"address exactly at cap", wire.Handshake{Protocol: 765, Address: strings.Repeat("a", wire.MaxAddressLen), Port: 25565, Intent: 2}},
}

func TestParseHandshake(t *testing.T) {
	for _, tt := range handshakeCases {
		t.Run(tt.name, func(t *testing.T) {
			in := frameOf(0, handshakeBody(tt.want.Protocol, tt.want.Address, tt.want.Port, tt.want.Intent))
			checkParsed(t, "ParseHandshake", result(wire.ParseHandshake(in)), parsed[wire.Handshake]{tt.want, len(in), nil})
		})
	}
}

func TestParseHandshakeLeavesLoginStartInTheSameSegment(t *testing.T) {
	want := wire.Handshake{Protocol: 765, Address: "mc.example.com", Port: 25565, Intent: 2}
	in := cat(frameOf(0, handshakeBody(765, "mc.example.com", 25565, 2)), frameOf(0x00, append([]byte{0x05}, "Steve"...)))
	checkParsed(t, "ParseHandshake", result(wire.ParseHandshake(in)), parsed[wire.Handshake]{want, 22, nil})
}

// handshakeRefusals are inputs ParseHandshake must wait on or refuse.
var handshakeRefusals = []struct {
	name string
	in   []byte
	want error
}{
	{"nothing read yet", nil, wire.ErrIncomplete},
	{"length prefix only", []byte{0x15}, wire.ErrIncomplete},
	{"length prefix says 1 MiB", []byte{0x80, 0x80, 0x40}, wire.ErrTooLarge},
	{"length one over cap", []byte{0x81, 0x40}, wire.ErrTooLarge},
	{"4-byte length prefix", []byte{0x80, 0x80, 0x80, 0x01}, wire.ErrMalformed},
	{"legacy 1.6 ping is not a handshake", []byte{0xfe, 0x01, 0xfa}, wire.ErrMalformed},
	{"http request rejected before the frame completes", []byte("GET / HTTP/1.1\r\n"), wire.ErrMalformed},
	{"tls client hello rejected before the frame completes", []byte{0x16, 0x03, 0x01, 0x02, 0x00}, wire.ErrMalformed},
	{"frame too short to be a handshake", []byte{0x03, 0x00}, wire.ErrMalformed},
	{"overlong packet id refused whole (regression: accepted or refused by segmentation)", overlongID, wire.ErrMalformed},
	{"overlong packet id refused from its first bytes", overlongID[:3], wire.ErrMalformed},
	{"incomplete frame with id 0 waits", []byte{0x10, 0x00, 0xfd}, wire.ErrIncomplete},
	{"wrong packet id", frameOf(1, handshakeBody(765, "a", 25565, 2)), wire.ErrMalformed},
	{"intent 0", frameOf(0, handshakeBody(765, "a", 25565, 0)), wire.ErrMalformed},
	{"intent 4", frameOf(0, handshakeBody(765, "a", 25565, 4)), wire.ErrMalformed},
	{"trailing byte inside frame", frameOf(0, append(handshakeBody(765, "a", 25565, 2), 0x00)), wire.ErrMalformed},
	{"address longer than cap", frameOf(0, handshakeBody(765, strings.Repeat("a", wire.MaxAddressLen+1), 25565, 2)), wire.ErrTooLarge},
	{"address runs past frame end", frameOf(0, []byte{0xfd, 0x05, 0x09, 'a'}), wire.ErrMalformed},
	{"frame ends before port", frameOf(0, append([]byte{0xfd, 0x05}, wire.AppendString(nil, "a")...)), wire.ErrMalformed},
	{"frame ends before intent", frameOf(0, append([]byte{0xfd, 0x05}, append(wire.AppendString(nil, "a"), 0x63, 0xdd)...)), wire.ErrMalformed},
	{"negative address length", frameOf(0, []byte{0xfd, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f}), wire.ErrMalformed},
	{"invalid utf-8 address", frameOf(0, handshakeBody(765, "a\xc3\x28", 25565, 2)), wire.ErrMalformed},
	{"6th continuation byte in protocol", frameOf(0, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}), wire.ErrMalformed},
}

func TestParseHandshakeRefusals(t *testing.T) {
	for _, tt := range handshakeRefusals {
		t.Run(tt.name, func(t *testing.T) {
			checkParsed(t, "ParseHandshake", result(wire.ParseHandshake(tt.in)), parsed[wire.Handshake]{err: tt.want})
		})
	}
}

func TestAppendHandshake(t *testing.T) {
	tests := []struct {
		name string
		hs   wire.Handshake
		want string
	}{
		{"1.20.4 login to mc.example.com",
			wire.Handshake{Protocol: 765, Address: "mc.example.com", Port: 25565, Intent: wire.IntentLogin},
			"15 00 fd 05 0e 6d 63 2e 65 78 61 6d 70 6c 65 2e 63 6f 6d 63 dd 02"},
		{"1.8 status ping of localhost",
			wire.Handshake{Protocol: 47, Address: "localhost", Port: 25565, Intent: wire.IntentStatus},
			"0f 00 2f 09 6c 6f 63 61 6c 68 6f 73 74 63 dd 01"},
		{"pinger with protocol -1 and port 0",
			wire.Handshake{Protocol: -1, Address: "", Port: 0, Intent: wire.IntentStatus},
			"0a 00 ff ff ff ff 0f 00 00 00 01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wire.AppendHandshake([]byte{0xaa}, tt.hs)
			if want := unhex(t, tt.want); !bytes.Equal(got[1:], want) || got[0] != 0xaa {
				t.Fatalf("AppendHandshake = % x, want aa % x", got, want)
			}
			hs, n, err := wire.ParseHandshake(got[1:])
			if err != nil || hs != tt.hs || n != len(got)-1 {
				t.Fatalf("ParseHandshake(AppendHandshake) = %+v, %d, %v", hs, n, err)
			}
		})
	}
}

func TestHandshakeIsLogin(t *testing.T) {
	tests := []struct {
		name   string
		intent int32
		want   bool
	}{
		{"status", wire.IntentStatus, false},
		{"login", wire.IntentLogin, true},
		{"transfer counts as login", wire.IntentTransfer, true},
		{"zero value", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (wire.Handshake{Intent: tt.intent}).IsLogin(); got != tt.want {
				t.Fatalf("IsLogin() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseHandshakeAllocatesOnlyTheAddress(t *testing.T) {
	b := frameOf(0, handshakeBody(765, "mc.example.com\x00FML3\x00", 25565, 2))
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := wire.ParseHandshake(b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Fatalf("ParseHandshake allocates %v times, want at most 1", allocs)
	}
	incomplete := testing.AllocsPerRun(100, func() {
		_, _, _ = wire.ParseHandshake(b[:len(b)-1])
	})
	if incomplete != 0 {
		t.Fatalf("ParseHandshake on a prefix allocates %v times, want 0", incomplete)
	}
}
