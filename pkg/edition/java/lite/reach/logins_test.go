package reach

import (
	"testing"

	"go.minekube.com/gate/internal/mctest"
)

// A login is known by its handshake and Login Start while it is being sent; a bare
// handshake is never recorded (players' handshakes to one host are alike), and
// another player's login is not taken for it.
func TestLoginsKnowALoginByItsBytesWhileItIsSent(t *testing.T) {
	l := NewLogins()
	steve := mctest.LoginPreamble(765, "play.example.com", "Steve")
	alex := mctest.LoginPreamble(765, "play.example.com", "Alex")
	key, ok := l.Begin(append(steve, 1, 2, 3)) // bytes after the Login Start do not matter
	if !ok || !l.Seen(steve) || l.Seen(alex) {
		t.Fatalf("recorded %v; Steve seen %v, Alex seen %v", ok, l.Seen(steve), l.Seen(alex))
	}
	hs := steve[:len(steve)-len(mctest.LoginStart("Steve"))]
	if _, ok := l.Begin(hs); ok || l.Seen(hs) {
		t.Fatal("a bare handshake was recorded or matched")
	}
	key2, _ := l.Begin(steve) // the same bytes twice: both must end
	l.End(key, ok)
	if !l.Seen(steve) {
		t.Fatal("forgotten while a second attempt with the same bytes is under way")
	}
	l.End(key2, true)
	if l.Seen(steve) {
		t.Fatal("still seen after every attempt ended")
	}
}
