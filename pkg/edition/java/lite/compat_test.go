package lite_test

import (
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Gate Lite behaviours ported from its own test cases, checked from outside
// through real sockets.

// `host: ”` loads and routes only the players whose handshake carries no host.
func TestEmptyHostPatternRoutesOnlyEmptyHost(t *testing.T) {
	empty := newBackend(t, statusJSON("empty", 0, 1))
	named := newBackend(t, statusJSON("named", 0, 1))
	p := startProxy(t, fill(`
config:
  lite:
    enabled: true
    routes:
      - host: ''
        backend: {{e}}
      - host: play.example.com
        backend: {{n}}
`, "e", empty.addr, "n", named.addr))

	dialProxy(t, p.addr).login("")
	if got := empty.next(t); got.hs.Address != "" {
		t.Fatalf("empty-host backend got host %q", got.hs.Address)
	}
	dialProxy(t, p.addr).login("play.example.com")
	named.next(t)

	c := dialProxy(t, p.addr)
	c.send(handshake(765, "other.example.com", wire.IntentLogin), loginStart("Steve"))
	c.disconnectText()
	if n := empty.logins.Load(); n != 1 {
		t.Fatalf("empty-host backend got %d logins, want 1 (a named host must not reach it)", n)
	}
}
