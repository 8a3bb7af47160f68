package lite_test

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// abuseConfig: loopback (127.0.0.1) is the trusted front that names players in PROXY
// headers; 127.0.0.2 is an untrusted peer. Gate's default quotas.
// quota are more keys of the quota block.
func abuseConfig(b string, quota ...string) string {
	return oneRoute("*", b).withTop("proxyProtocol: true", "proxyProtocolTrustedProxies: [127.0.0.1]", "readTimeout: 1s", "connectionTimeout: 1s").
		quota(append([]string{"firstByteTimeout: 300ms"}, quota...)...).String()
}

// Someone with many addresses connects once from each to push a throttled flooder out
// of the bucket table: the flooder's empty bucket must survive.
func TestAddressSprayCannotResetAFloodersQuota(t *testing.T) {
	b := newBackend(t, statusJSON("s", 0, 1))
	quota := "connections: {enabled: true, ops: 0.01, burst: 2, maxEntries: 8}"
	p := startProxy(t, abuseConfig(b.addr, quota), proxyOpts{now: newManualClock().Now})
	flood := func() bool { // reports whether the flooder got past accept
		refused := p.Admission().Stats().RateLimited
		c := dialAs(t, p.addr, "203.0.113.5:1")
		c.send([]byte{0x00, 0x00, 0x00}) // garbage: it pays the connections quota
		c.expectClosed()
		waitFor(t, "flood connection released", 5*time.Second, func() bool { return p.Admission().Stats().Open == 0 })
		return p.Admission().Stats().RateLimited == refused
	}
	// Each call is one more connection from the flooder: two fit the burst, the third not.
	for i, want := range []bool{true, true, false} {
		if got := flood(); got != want {
			t.Fatalf("flooder connection %d admitted=%v, want %v (burst of 2)", i+1, got, want)
		}
	}
	for i := range 200 {
		c := dialAs(t, p.addr, fmt.Sprintf("[2001:db8:%x::1]:1", i))
		_ = c.Close()
	}
	if flood() {
		t.Fatal("the spray reset the flooder's quota")
	}
	if st := p.Admission().Stats(); st.ConnectionEntries > 8 {
		t.Fatalf("bucket table holds %d entries, max 8", st.ConnectionEntries)
	}
	admissionSettled(t, p)
}

// dialFrom connects from a chosen loopback address.
func dialFrom(local, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	return d.Dial("tcp", addr)
}

// abuser runs one kind of bad client n times and counts what the proxy did to it.
type abuser struct {
	name string
	n    int
	run  func(addr string, i int) error
}

// holdUntilClosed reads until the proxy closes c (at most 5s).
func holdUntilClosed(c net.Conn) error {
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.Read(make([]byte, 1))
	return err
}

// mixedFlood is the abuse of TestLegitimatePlayersServedDuringAMixedFlood: each kind
// of bad client, many times, through the trusted front or as the untrusted peer.
func mixedFlood(t *testing.T) []abuser {
	asFront := func(src string, payload []byte) func(addr string, i int) error {
		return func(addr string, i int) error {
			c, err := dialFrom("127.0.0.1", addr)
			if err != nil {
				return err
			}
			defer c.Close()
			if _, err := c.Write(append(proxyV1(t, fmt.Sprintf("%s:%d", src, 1000+i)), payload...)); err != nil {
				return nil // closed at accept: fine
			}
			return holdUntilClosed(c)
		}
	}
	return []abuser{
		{"garbage", 150, asFront("203.0.113.10", []byte("GET / HTTP/1.1\r\n\r\n"))},
		{"oversize frame", 100, asFront("203.0.113.11", []byte{0xFF, 0xFF, 0x7F, 0x00})},
		{"slowloris", 100, asFront("203.0.113.12", []byte{0x10})},
		{"login flood from one address", 150, asFront("198.51.100.66", append(handshake(765, "x.example.com", wire.IntentLogin), loginStart("Bot")...))},
		{"untrusted PROXY header", 100, func(addr string, i int) error {
			c, err := dialFrom("127.0.0.2", addr)
			if err != nil {
				return err
			}
			defer c.Close()
			_, _ = c.Write(proxyV1(t, "192.0.2.200:1"))
			return holdUntilClosed(c)
		}},
	}
}

// During a mixed flood (garbage, oversize frames, slowloris, untrusted PROXY headers,
// a login flood from one address) every legitimate player is served, and afterwards
// nothing is left open.
func TestLegitimatePlayersServedDuringAMixedFlood(t *testing.T) {
	b := newBackend(t, statusJSON("s", 0, 1))
	p := startProxy(t, abuseConfig(b.addr))
	var wg sync.WaitGroup
	var unexpected atomic.Int64
	for _, a := range mixedFlood(t) {
		for i := range a.n {
			wg.Go(func() {
				if err := a.run(p.addr, i); err != nil && !strings.Contains(err.Error(), "reset") && err.Error() != "EOF" {
					unexpected.Add(1)
					t.Logf("%s #%d: %v", a.name, i, err)
				}
			})
		}
	}
	for i := range 20 {
		c := dialAs(t, p.addr, fmt.Sprintf("198.18.%d.7:25000", i)) // each from its own /24
		c.login("play.example.com")
		_ = c.Close()
	}
	wg.Wait()
	if unexpected.Load() != 0 {
		t.Fatalf("%d abusive connections were not closed by the proxy within 5s", unexpected.Load())
	}
	if n := b.Logins(); n > 20+10 {
		t.Fatalf("backend saw %d logins: the flood was not held at the quota", n)
	}
	admissionSettled(t, p)
}
