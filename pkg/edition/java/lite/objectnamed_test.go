package lite_test

import (
	"net"
	"net/netip"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// TestObjectNamedHostIsGuarded: a host name a discovered object wrote as its backend
// (an ExternalName Service, mc-router's proxyServerName) is resolved and dialled
// under the guard, so a tenant cannot aim the proxy at its own loopback by DNS; the
// same name written by the operator in the file is dialled as written.
func TestObjectNamedHostIsGuarded(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 1))
	_, port, _ := net.SplitHostPort(b.addr)
	dns := &fakeDNS{hosts: map[string][]netip.Addr{
		"inside.tenant":  {netip.MustParseAddr("127.0.0.1")},
		"outside.tenant": {netip.MustParseAddr("192.0.2.10")},
	}}
	dialer := &redirectDialer{to: b.addr}
	p := startProxy(t, oneRoute("file.test", "inside.tenant:"+port).quotasOff().String(), proxyOpts{resolver: dns, dialer: dialer})

	discovered := func(backend string) {
		t.Helper()
		cfg, _, err := config.Parse([]byte(oneRoute("found.test", backend).quotasOff().String()), "test.yml")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Lite.Routes[0].Key = "kubernetes/tenant/found.test"
		if err := p.Reload(cfg); err != nil {
			t.Fatal(err)
		}
	}

	discovered("inside.tenant:" + port)
	loginUnavailable(t, p, "found.test")
	if asked := dialer.dialled(); len(asked) != 0 || b.Logins() != 0 {
		t.Fatalf("an object's name reached loopback: dialled %v, %d logins", asked, b.Logins())
	}

	discovered("outside.tenant:25565")
	dialProxy(t, p.addr).login("found.test")
	b.next(t)
	if asked := dialer.dialled(); len(asked) != 1 || asked[0] != "192.0.2.10:25565" {
		t.Fatalf("dialled %v, want the object's name resolved by the guard to [192.0.2.10:25565]", asked)
	}

	if err := p.reload(oneRoute("file.test", "inside.tenant:"+port).quotasOff().String()); err != nil {
		t.Fatal(err)
	}
	dialProxy(t, p.addr).login("file.test")
	b.next(t)
}
