package lite_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// quotaConfig serves one catch-all route to b behind a trusted front (loopback sends
// PROXY headers naming the players). The buckets refill only when the test moves the
// clock; quota are more keys of the quota block.
func quotaConfig(b string, quota ...string) string {
	return oneRoute("*", b).with("cachePingTTL: -1").withTop("proxyProtocol: true", "connectionTimeout: 1s").
		quota(append([]string{"connections: {enabled: false}", "logins: {enabled: true, ops: 0.01, burst: 2}", "status: {enabled: true, ops: 0.01, burst: 1}"}, quota...)...).
		String()
}

func TestLoginsQuotaPerPlayerAddress(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	clk := newManualClock()
	rec := &rejections{}
	p := startProxy(t, quotaConfig(b.addr), proxyOpts{now: clk.Now, obs: rec})

	loginAs := func(src string) {
		t.Helper()
		c := dialAs(t, p.addr, src)
		c.login("play.example.com")
		_ = c.Close()
	}
	refusedAs := func(src string) {
		t.Helper()
		c := dialAs(t, p.addr, src)
		c.send(handshake(765, "play.example.com", wire.IntentLogin), loginStart("Steve"))
		if text := c.disconnectText(); !strings.Contains(text, "connecting too often") {
			t.Fatalf("refused login got %q", text)
		}
		c.expectClosed()
	}
	loginAs("203.0.113.5:40000")
	loginAs("203.0.113.77:40001") // same /24: same bucket
	refusedAs("203.0.113.5:40002")
	loginAs("198.51.100.9:40003")  // another block is not affected
	clk.Advance(100 * time.Second) // 0.01/s: one token back
	loginAs("203.0.113.5:40004")
	refusedAs("203.0.113.5:40005")

	if got := b.Logins(); got != 4 {
		t.Fatalf("backend saw %d logins, want 4", got)
	}
	if got := rec.afterClosed(t, 6); got != "admission,admission" {
		t.Fatalf("rejections = %q", got)
	}
	admissionSettled(t, p)
}

func TestStatusQuotaClosesPingAndSparesLogins(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	p := startProxy(t, quotaConfig(b.addr), proxyOpts{now: newManualClock().Now})
	if _, err := dialAs(t, p.addr, "203.0.113.5:1").status(765, "play.example.com"); err != nil {
		t.Fatalf("first ping: %v", err)
	}
	c := dialAs(t, p.addr, "203.0.113.5:2")
	c.send(handshake(765, "play.example.com", wire.IntentStatus), wire.AppendStatusRequest(nil))
	c.expectClosed() // no text: a ping has nowhere to show one
	loginAndLeave(dialAs(t, p.addr, "203.0.113.5:3"), "play.example.com")
	admissionSettled(t, p)
}

func TestAdmissionAtAcceptClosesBeforeTheHandshake(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		src   string // the refused player
		ok    string // a player admitted under the same config
	}{
		{"deny list", "deny: [203.0.113.0/24]", "203.0.113.9:1", "198.51.100.1:1"},
		{"not on the allow list", "allow: [198.51.100.0/24, '2001:db8::/32']", "203.0.113.9:1", "198.51.100.1:1"},
		{"IPv6 deny by /48", "deny: ['2001:db8:bad::/48']", "[2001:db8:bad:7::1]:1", "[2001:db8:900d::1]:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, statusJSON("q", 0, 10))
			rec := &rejections{}
			p := startProxy(t, quotaConfig(b.addr, tc.extra), proxyOpts{obs: rec})
			start := time.Now()
			dialAs(t, p.addr, tc.src).expectClosed() // without sending a handshake
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("refusal took %v; it must not wait for the handshake", d)
			}
			loginAndLeave(dialAs(t, p.addr, tc.ok), "play.example.com")
			if got := rec.list(); got != "admission" {
				t.Fatalf("rejections = %q", got)
			}
			admissionSettled(t, p)
		})
	}
}

// TestConnectionsQuotaChargesOnlyConnectionsWithoutAHandshake: pings and logins pay
// their own quotas, not the accept-time budget; garbage pays it, and a login refused
// at accept once the block has spent it gets a Disconnect saying when to retry.
func TestConnectionsQuotaChargesOnlyConnectionsWithoutAHandshake(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	clk := newManualClock()
	yaml := strings.Replace(quotaConfig(b.addr), "connections: {enabled: false}", "connections: {enabled: true, ops: 0.01, burst: 2}", 1)
	p := startProxy(t, yaml, proxyOpts{now: clk.Now})
	for i := range 2 { // with the ping below, more than the burst: none pays it
		loginAndLeave(dialAs(t, p.addr, fmt.Sprintf("203.0.113.5:%d", i+1)), "a.example.com")
	}
	if _, err := dialAs(t, p.addr, "203.0.113.6:1").status(765, "a.example.com"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // garbage pays at close
		c := dialAs(t, p.addr, fmt.Sprintf("203.0.113.7:%d", i+1))
		c.send([]byte{0x00, 0x00, 0x00})
		c.expectClosed()
	}
	waitFor(t, "garbage paid", 5*time.Second, func() bool { return p.Admission().Stats().Open == 0 })
	c := dialAs(t, p.addr, "203.0.113.8:1") // the /24 has spent its burst
	c.send(handshake(765, "a.example.com", wire.IntentLogin), loginStart("Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "connecting too often. Try again in 100 seconds") {
		t.Fatalf("login refused at accept got %q", text)
	}
	c.expectClosed()
	loginAndLeave(dialAs(t, p.addr, "192.0.2.1:1"), "a.example.com")
	admissionSettled(t, p)
}

// TestRefreshingTheServerListNeverLocksOutAJoin is the case: with the default
// quotas, a player who pings 30 times in a row can still join at once.
func TestRefreshingTheServerListNeverLocksOutAJoin(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	p := startProxy(t, oneRoute("*", b.addr).withTop("proxyProtocol: true").String(), proxyOpts{now: newManualClock().Now})
	answered := 0
	for i := range 30 {
		if _, err := dialAs(t, p.addr, fmt.Sprintf("203.0.113.5:%d", i+1)).status(765, "play.example.com"); err == nil {
			answered++
		}
	}
	if answered != 10 {
		t.Fatalf("%d of 30 pings answered, want the status burst of 10", answered)
	}
	loginAndLeave(dialAs(t, p.addr, "203.0.113.5:100"), "play.example.com")
	admissionSettled(t, p)
}

// TestLegacyPingsPayTheStatusQuota: a 0xFE ping is a ping: the status quota (burst 1
// in quotaConfig) refuses the second one.
func TestLegacyPingsPayTheStatusQuota(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	p := startProxy(t, quotaConfig(b.addr), proxyOpts{now: newManualClock().Now})
	legacy := func(port int) (answered bool) {
		c := dialAs(t, p.addr, fmt.Sprintf("203.0.113.5:%d", port))
		c.send([]byte{0xFE, 0x01})
		b, err := c.br.ReadByte()
		return err == nil && b == 0xFF
	}
	if !legacy(1) {
		t.Fatal("first legacy ping not answered")
	}
	if legacy(2) {
		t.Fatal("second legacy ping answered past the status quota")
	}
	loginAndLeave(dialAs(t, p.addr, "203.0.113.5:3"), "play.example.com")
	admissionSettled(t, p)
}

func TestCapsOnOpenConnections(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	p := startProxy(t, quotaConfig(b.addr, "maxConnections: 3", "maxConnectionsPerIP: 2"))

	// Two silent connections from one address hold its share.
	a1, a2 := dialAs(t, p.addr, "203.0.113.5:1"), dialAs(t, p.addr, "203.0.113.5:2")
	waitFor(t, "two admitted", 5*time.Second, func() bool { return p.Admission().Stats().Open == 2 })
	dialAs(t, p.addr, "203.0.113.5:3").expectClosed() // per-address cap
	held := dialAs(t, p.addr, "198.51.100.1:1")
	held.login("a.example.com")                     // a player session counts as well
	dialAs(t, p.addr, "192.0.2.1:1").expectClosed() // global cap: 3 open
	if st := p.Admission().Stats(); st.Open != 3 || st.TooManyFromAddr != 1 || st.Busy != 1 {
		t.Fatalf("stats = %+v", st)
	}
	_ = a1.Close()
	waitFor(t, "a slot freed", 5*time.Second, func() bool { return p.Admission().Stats().Open == 2 })
	loginAndLeave(dialAs(t, p.addr, "192.0.2.1:2"), "a.example.com")
	_ = a2.Close()
	_ = held.Close()
	admissionSettled(t, p)
}

// A tunnel (playit.gg, ngrok) or load balancer without PROXY headers connects from a
// trusted address: every player arrives from it, so it must not be throttled as one.
func TestTrustedFrontWithoutHeaderIsNotThrottledAsOnePlayer(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	p := startProxy(t, quotaConfig(b.addr, "maxConnectionsPerIP: 1"), proxyOpts{now: newManualClock().Now})
	var held []*client
	for range 5 {
		c := dialProxy(t, p.addr) // loopback, no header
		c.login("a.example.com")
		held = append(held, c)
	}
	for _, c := range held {
		_ = c.Close()
	}
	admissionSettled(t, p)
}

func TestProxyHeaderOnlyFromTrustedPeers(t *testing.T) {
	tests := []struct {
		name   string
		proxy  []string
		header []byte
	}{
		{"v1 from an untrusted peer", []string{"proxyProtocol: true", "proxyProtocolTrustedProxies: [192.0.2.0/24]"}, proxyV1(t, "203.0.113.5:1")},
		{"v2 from an untrusted peer", []string{"proxyProtocol: true", "proxyProtocolTrustedProxies: [192.0.2.0/24]"}, proxyHeaderFrom(t, 2, "203.0.113.5:1")},
		{"v1 while PROXY protocol is off", []string{"proxyProtocol: false"}, proxyV1(t, "203.0.113.5:1")},
		{"v2 while PROXY protocol is off", []string{"proxyProtocol: false"}, proxyHeaderFrom(t, 2, "203.0.113.5:1")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, statusJSON("q", 0, 10))
			rec := &rejections{}
			p := startProxy(t, oneRoute("*", b.addr).withTop(tc.proxy...).String(), proxyOpts{obs: rec})
			c := dialProxy(t, p.addr)
			c.send(tc.header, handshake(765, "a.example.com", wire.IntentLogin), loginStart("Mallory"))
			c.expectClosed()
			if got := rec.afterClosed(t, 1); got != "proxy-header" || b.Logins() != 0 {
				t.Fatalf("rejections %q, backend logins %d", got, b.Logins())
			}
			loginAndLeave(dialProxy(t, p.addr), "a.example.com") // plain clients still get in
			admissionSettled(t, p)
		})
	}
}

func TestQuotaStateSurvivesReload(t *testing.T) {
	b := newBackend(t, statusJSON("q", 0, 10))
	yaml := quotaConfig(b.addr)
	p := startProxy(t, yaml, proxyOpts{now: newManualClock().Now})
	for range 2 {
		loginAndLeave(dialAs(t, p.addr, "203.0.113.5:1"), "a.example.com")
	}
	refused := func() bool {
		c := dialAs(t, p.addr, "203.0.113.5:1")
		c.send(handshake(765, "a.example.com", wire.IntentLogin), loginStart("Steve"))
		// An admitted login gets its handshake echoed: a frame with id 0 as well, so tell
		// them apart by the text.
		_, payload, err := c.frame()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(payload), "connecting too often")
	}
	if !refused() {
		t.Fatal("third login admitted")
	}
	if err := p.reload(yaml); err != nil {
		t.Fatal(err)
	}
	if !refused() {
		t.Fatal("a reload handed out a fresh burst")
	}
	if err := p.reload(strings.Replace(yaml, "logins: {enabled: true, ops: 0.01, burst: 2}", "logins: {enabled: false}", 1)); err != nil {
		t.Fatal(err)
	}
	loginAndLeave(dialAs(t, p.addr, "203.0.113.5:1"), "a.example.com")
	admissionSettled(t, p)
}
