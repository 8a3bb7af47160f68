package reach

import (
	"net/netip"
	"testing"

	"go.minekube.com/gate/internal/mctest"
)

var (
	playerIP = netip.MustParseAddr("192.0.2.10")
	peerIP   = netip.MustParseAddr("192.0.2.99") // a forwarder, another replica
)

// A login is known by its handshake and Login Start while it is being sent, when it
// comes back from another address; a bare handshake is never recorded (players'
// handshakes to one host are alike), another player's login is not taken for it, and
// the same bytes from the player's own address are that player again.
func TestLoginsKnowALoginByItsBytesWhileItIsSent(t *testing.T) {
	l := NewLogins()
	steve := mctest.LoginPreamble(765, "play.example.com", "Steve")
	alex := mctest.LoginPreamble(765, "play.example.com", "Alex")
	in := l.Begin(append(steve, 1, 2, 3), playerIP) // bytes after the Login Start do not matter
	if !l.Seen(steve, peerIP) || l.Seen(alex, peerIP) || l.Seen(steve, playerIP) {
		t.Fatalf("Steve from a peer %v, Alex %v, Steve from his own address %v; want true, false, false",
			l.Seen(steve, peerIP), l.Seen(alex, peerIP), l.Seen(steve, playerIP))
	}
	hs := steve[:len(steve)-len(mctest.LoginStart("Steve"))]
	if l.Begin(hs, playerIP).ok || l.Seen(hs, peerIP) {
		t.Fatal("a bare handshake was recorded or matched")
	}
	again := l.Begin(steve, playerIP) // the same bytes twice: both must end
	l.End(in)
	if !l.Seen(steve, peerIP) {
		t.Fatal("forgotten while a second attempt with the same bytes is under way")
	}
	l.End(again)
	if l.Seen(steve, peerIP) {
		t.Fatal("still seen after every attempt ended")
	}
}
