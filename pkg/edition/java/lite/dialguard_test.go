package lite_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// fakeDNS answers address lookups from a table and records every query; no test
// sends a DNS query for a made-up name. It has no SRV records.
type fakeDNS struct {
	mu      sync.Mutex
	hosts   map[string][]netip.Addr
	queries []string
}

func (r *fakeDNS) LookupSRV(ctx context.Context, service, proto, name string) (string, []*net.SRV, error) {
	r.record("srv " + name)
	return "", nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (r *fakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.record(host)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ips, ok := r.hosts[host]; ok {
		return ips, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *fakeDNS) record(q string) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.mu.Unlock()
}

func (r *fakeDNS) count(q string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.queries {
		if x == q {
			n++
		}
	}
	return n
}

// redirectDialer dials every address to one loopback backend and records what it was
// asked for, so a test can let the guard allow a public address and still reach a
// backend on loopback.
type redirectDialer struct {
	to    string
	mu    sync.Mutex
	asked []string
}

func (d *redirectDialer) dialled() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.asked...)
}

func (d *redirectDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	d.asked = append(d.asked, address)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, d.to)
}

// TestTemplateCannotSteerDials: a template whose host is all captures ('$1:25565') lets
// the player pick the dial target. An expanded address that is loopback (a literal or
// a name resolving to it), unspecified or link-local is refused with the route's
// unavailable text, for logins and status fetches; a public one is resolved by the
// proxy (injected resolver) and dialled by IP; failed lookups are remembered.
func TestTemplateCannotSteerDials(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 1))
	dns := &fakeDNS{hosts: map[string][]netip.Addr{
		"localhost": {netip.MustParseAddr("127.0.0.1")},
		"good":      {netip.MustParseAddr("192.0.2.10")},
	}}
	dialer := &redirectDialer{to: b.addr}
	p := startProxy(t, oneRoute("*.dyn.test", "$1:25565").quotasOff().String(), proxyOpts{resolver: dns, dialer: dialer})

	refused := func(t *testing.T, host string) { t.Helper(); loginUnavailable(t, p, host) }
	for _, host := range []string{"127.0.0.1.dyn.test", "localhost.dyn.test", "0.0.0.0.dyn.test", "169.254.1.1.dyn.test", "224.0.0.1.dyn.test", "nx.dyn.test"} {
		t.Run("refused "+host, func(t *testing.T) { refused(t, host) })
	}
	if _, err := dialProxy(t, p.addr).status(765, "127.0.0.1.dyn.test"); err == nil {
		t.Fatal("a status ping reached a steered address")
	}
	if asked := dialer.dialled(); len(asked) != 0 || b.Logins()+b.StatusRequests() != 0 {
		t.Fatalf("steered dials went out: %v", asked)
	}

	t.Run("a public address is dialled by IP", func(t *testing.T) {
		c := dialProxy(t, p.addr)
		c.login("good.dyn.test")
		b.next(t)
		if asked := dialer.dialled(); len(asked) != 1 || asked[0] != "192.0.2.10:25565" {
			t.Fatalf("dialled %v, want [192.0.2.10:25565]", asked)
		}
	})
	t.Run("failed lookups are remembered", func(t *testing.T) {
		refused(t, "nx.dyn.test")
		if n := dns.count("nx"); n != 1 {
			t.Fatalf("nx looked up %d times, want 1 (failure remembered)", n)
		}
	})
}

// TestLiteralTemplateHostMayReachLoopbackButNotTheProxy: '127.0.0.1:$1' names loopback
// itself, so the player may choose the port, but not the proxy's own.
func TestLiteralTemplateHostMayReachLoopbackButNotTheProxy(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 1))
	_, port, _ := net.SplitHostPort(b.addr)
	p := startProxy(t, oneRoute("*.port.test", "127.0.0.1:$1").quotasOff().String(), proxyOpts{resolver: &fakeDNS{}})
	dialProxy(t, p.addr).login(port + ".port.test")
	b.next(t)
	_, own, _ := net.SplitHostPort(p.addr)
	loginUnavailable(t, p, own+".port.test")
}

// loginUnavailable logs in with host and expects the route's unavailable text: the
// dial guard refused every backend.
func loginUnavailable(t *testing.T, p *proxy, host string) {
	t.Helper()
	c := dialProxy(t, p.addr)
	c.send(handshake(765, host, wire.IntentLogin), loginStart("Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("%s: disconnect %s", host, text)
	}
}
