package lite

import (
	"net/netip"
	"testing"
)

// TestDialGuardProtectsTheProxyItself: an expanded address on the proxy's own listen
// or admin port is refused even when the route writes its host out; other literal
// hosts may be anything the operator wrote.
func TestDialGuardProtectsTheProxyItself(t *testing.T) {
	var g dialGuard
	g.setOwn("0.0.0.0:25565", "localhost:8080", "10.0.0.9:9000")
	for _, c := range []struct {
		addr    string
		literal bool
		want    bool
	}{
		{"127.0.0.1:25565", true, true},
		{"127.0.0.1:8080", true, true},
		{"10.0.0.9:9000", true, true},
		{"10.0.0.8:9000", true, false},
		{"127.0.0.1:25566", true, false},
		{"127.0.0.1:25566", false, true},
		{"[::1]:25566", false, true},
		{"[fe80::1]:25566", false, true},
		{"192.0.2.1:25565", false, false},
	} {
		if got := g.protected(netip.MustParseAddrPort(c.addr), c.literal); got != c.want {
			t.Errorf("protected(%s, literal=%v) = %v, want %v", c.addr, c.literal, got, c.want)
		}
	}
}
