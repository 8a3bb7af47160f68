package reach

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
)

// fixedLocal is a LocalAddrs whose host has the given interface addresses.
func fixedLocal(ips ...string) *LocalAddrs {
	return NewLocalAddrs(func() ([]net.Addr, error) {
		var out []net.Addr
		for _, ip := range ips {
			out = append(out, &net.IPNet{IP: net.ParseIP(ip), Mask: net.CIDRMask(32, 32)})
		}
		return out, nil
	})
}

// TestGuardProtectsTheProxyItself: an expanded address on one of the proxy's own
// listening ports is refused whatever the template names, and with an unspecified
// bind that covers every interface address of the host, not only loopback; other
// hosts a template writes out may be anything the operator wrote.
func TestGuardProtectsTheProxyItself(t *testing.T) {
	g := NewGuard(nil, fixedLocal("10.9.0.1", "192.0.2.7"))
	g.SetOwn("0.0.0.0:25565", "localhost:8080", "10.0.0.9:9000")
	for _, c := range []struct {
		addr  string
		named bool
		want  bool
	}{
		{"127.0.0.1:25565", true, true},
		{"10.9.0.1:25565", true, true}, // an interface address on the players' port
		{"192.0.2.7:25565", false, true},
		{"10.9.0.1:8080", true, true}, // and on the admin API's
		{"127.0.0.1:8080", true, true},
		{"10.0.0.9:9000", true, true},
		{"10.0.0.8:9000", true, false},
		{"10.9.0.1:25566", true, false}, // the host's other ports are the operator's to name
		{"127.0.0.1:25566", true, false},
		{"127.0.0.1:25566", false, true},
		{"[::1]:25566", false, true},
		{"[fe80::1]:25566", false, true},
		{"192.0.2.1:25565", false, false},
	} {
		if got := g.Protected(netip.MustParseAddrPort(c.addr), c.named); got != c.want {
			t.Errorf("Protected(%s, named=%v) = %v, want %v", c.addr, c.named, got, c.want)
		}
	}
}

// TestLocalAddrsReReadAfterTTL: an address the host gains later is protected once
// the set is re-read, and a failed read keeps what was known.
func TestLocalAddrsReReadAfterTTL(t *testing.T) {
	ips := []string{"10.9.0.1"}
	fail := false
	l := NewLocalAddrs(func() ([]net.Addr, error) {
		if fail {
			return nil, errors.New("netlink down")
		}
		var out []net.Addr
		for _, ip := range ips {
			out = append(out, &net.IPAddr{IP: net.ParseIP(ip)})
		}
		return out, nil
	})
	a1, a2 := netip.MustParseAddr("10.9.0.1"), netip.MustParseAddr("10.9.0.2")
	if !l.Has(a1) || l.Has(a2) {
		t.Fatal("first read wrong")
	}
	ips = append(ips, "10.9.0.2")
	if l.Has(a2) {
		t.Fatal("re-read before the TTL")
	}
	expire := func() {
		s := *l.set.Load()
		s.at = s.at.Add(-LocalAddrsTTL)
		l.set.Store(&s)
	}
	expire()
	if !l.Has(a2) {
		t.Fatal("new address not seen after the TTL")
	}
	fail = true
	expire()
	if !l.Has(a1) || !l.Has(a2) {
		t.Fatal("a failed read forgot the known addresses")
	}
}

// TestNamedHostIsPerTemplate: only the host a template writes out is exempt, and
// only for that template's expansions.
func TestNamedHostIsPerTemplate(t *testing.T) {
	for tmpl, want := range map[string]string{
		"10.0.0.5:$1":       "10.0.0.5",
		"127.0.0.1:$1":      "127.0.0.1",
		"$1:$2":             "",
		"$1.$2.$3.$4:$5":    "",
		"$1.internal:25565": "",
		"[::1]:$1":          "::1",
		"mc.example.com":    "mc.example.com",
		"10.0.$1.5:25565":   "",
	} {
		if got := NamedHost(tmpl); got != want {
			t.Errorf("NamedHost(%q) = %q, want %q", tmpl, got, want)
		}
	}

	g := NewGuard(staticDNS{}, fixedLocal())
	g.SetOwn("127.0.0.1:25565")
	ctx := context.Background()
	if _, err := g.Expanded(ctx, "$1:$2", "127.0.0.1:8080"); !errors.Is(err, ErrProtectedAddress) {
		t.Errorf("'$1:$2' to loopback: %v, want refused", err)
	}
	if got, err := g.Expanded(ctx, "127.0.0.1:$1", "127.0.0.1:8080"); err != nil || got != "127.0.0.1:8080" {
		t.Errorf("'127.0.0.1:$1' to loopback: %q %v, want allowed", got, err)
	}
	if _, err := g.Expanded(ctx, "127.0.0.1:$1", "127.0.0.1:25565"); !errors.Is(err, ErrProtectedAddress) {
		t.Errorf("'127.0.0.1:$1' to the proxy: %v, want refused", err)
	}
}

// staticDNS knows no names at all.
type staticDNS struct{}

func (staticDNS) LookupSRV(context.Context, string, string, string) (string, []*net.SRV, error) {
	return "", nil, &net.DNSError{Err: "no such host", IsNotFound: true}
}

func (staticDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}
