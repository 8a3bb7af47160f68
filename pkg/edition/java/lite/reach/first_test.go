package reach

import (
	"bytes"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

var (
	v2sig = []byte("\r\n\r\n\x00\r\nQUIT\n")
	peer  = Peer{Client: &net.TCPAddr{IP: net.IPv4(203, 0, 113, 5), Port: 4000}, Local: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: int(wire.DefaultPort)}}
)

// TestFirstSameForLoginAndStatus: a route's login and status paths show the backend
// the same header and the same rewritten handshake; an unrewritten login forwards the
// client's bytes as read.
func TestFirstSameForLoginAndStatus(t *testing.T) {
	hs := wire.Handshake{Protocol: 765, Address: "play.example.com\x00FML3\x00", Port: wire.DefaultPort, Intent: wire.IntentLogin}
	raw := append(wire.AppendHandshake(nil, hs), 0xAA)
	now := time.Unix(1700000000, 0)

	plain := NewFirst(false, false, false)
	bufs, err := plain.Login(Login{Raw: raw, Handshake: hs, Extra: raw[len(raw)-1:], Backend: "10.0.0.5:25565", Peer: peer, Now: now})
	if err != nil || len(bufs) != 1 || &bufs[0][0] != &raw[0] {
		t.Fatalf("unrewritten login is not the client's bytes as read: %v %v", bufs, err)
	}

	f := NewFirst(true, true, false)
	bufs, err = f.Login(Login{Raw: raw, Handshake: hs, Extra: raw[len(raw)-1:], Backend: "10.0.0.5:25565", Peer: peer, Now: now})
	if err != nil || len(bufs) != 2 || !bytes.HasPrefix(bufs[0], v2sig) {
		t.Fatalf("login with PROXY header: %v %v", bufs, err)
	}
	want := hs
	want.Address = "10.0.0.5\x00FML3\x00"
	if wantHS := append(wire.AppendHandshake(nil, want), 0xAA); !bytes.Equal(bufs[1], wantHS) {
		t.Fatalf("login handshake %q, want %q", bufs[1], wantHS)
	}
	st, err := f.Status(hs, "10.0.0.5:25565", peer, now)
	if err != nil {
		t.Fatal(err)
	}
	want.Intent = wire.IntentStatus
	wantSt := wire.AppendStatusRequest(append(append([]byte(nil), bufs[0]...), wire.AppendHandshake(nil, want)...))
	if !bytes.Equal(st, wantSt) {
		t.Fatalf("status bytes\n got %q\nwant %q", st, wantSt)
	}
}

// TestProbeNamesTheBackend: a probe's handshake names the backend and its port (the
// default one when it has none), behind a LOCAL header when asked.
func TestProbeNamesTheBackend(t *testing.T) {
	b, err := Probe("mc.internal", true)
	if err != nil || !bytes.HasPrefix(b, v2sig) {
		t.Fatalf("probe: %q %v", b, err)
	}
	want := wire.AppendStatusRequest(wire.AppendHandshake(nil, wire.Handshake{Protocol: -1, Address: "mc.internal", Port: wire.DefaultPort, Intent: wire.IntentStatus}))
	if !bytes.HasSuffix(b, want) {
		t.Fatalf("probe %q does not end in %q", b, want)
	}
}
