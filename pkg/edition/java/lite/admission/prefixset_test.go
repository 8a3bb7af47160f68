package admission

import (
	"net/netip"
	"testing"
)

func TestPrefixSetContains(t *testing.T) {
	set := newPrefixSet([]netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("192.0.2.7/32"),
		netip.MustParsePrefix("2001:db8::/32"),
		netip.MustParsePrefix("::ffff:198.51.100.0/120"),
		netip.MustParsePrefix("203.0.113.9/16"), // not masked in the config: still a /16
	})
	tests := []struct {
		name string
		addr string
		want bool
	}{
		{"inside a /8", "10.200.3.4", true},
		{"exact host", "192.0.2.7", true},
		{"neighbour of an exact host", "192.0.2.8", false},
		{"IPv6 inside a /32", "2001:db8:ffff::1", true},
		{"IPv6 outside", "2001:db9::1", false},
		{"IPv4-mapped address against an IPv4 prefix", "::ffff:10.1.1.1", true},
		{"IPv4 address against an IPv4-mapped prefix", "198.51.100.77", true},
		{"unmasked prefix", "203.0.1.1", true},
		{"zero address", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a netip.Addr
			if tc.addr != "" {
				a = netip.MustParseAddr(tc.addr)
			}
			if got := set.contains(a); got != tc.want {
				t.Fatalf("contains(%s) = %v, want %v", tc.addr, got, tc.want)
			}
		})
	}
	if !newPrefixSet(nil).empty() || newPrefixSet(nil).contains(netip.MustParseAddr("10.0.0.1")) {
		t.Fatal("the empty set is not empty")
	}
}
