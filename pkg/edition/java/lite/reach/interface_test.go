package reach

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// Regression (issue 30, interface addresses): a template could reach any service
// bound on 0.0.0.0 through the host's interface address while 127.0.0.1 was refused.
// Every interface address of the host now gets loopback's treatment, unless the
// template writes that host out itself.
func TestGuardProtectsTheHostsInterfaceAddresses(t *testing.T) {
	g := NewGuard(nil, fixedLocal("10.9.0.1", "192.0.2.7"))
	for _, c := range []struct {
		addr  string
		named bool
		want  bool
	}{
		{"10.9.0.1:2375", false, true}, // a Docker API on every interface
		{"192.0.2.7:5432", false, true},
		{"192.0.2.8:5432", false, false}, // another host
		{"10.9.0.1:2375", true, false},   // the operator wrote this host out
	} {
		if got := g.Protected(netip.MustParseAddrPort(c.addr), c.named); got != c.want {
			t.Errorf("Protected(%s, named=%v) = %v, want %v", c.addr, c.named, got, c.want)
		}
	}
	if _, err := g.Expanded(context.Background(), "$1:2375", "10.9.0.1:2375"); !errors.Is(err, ErrProtectedAddress) {
		t.Fatalf("a capture reached the host's own interface: %v", err)
	}
}
