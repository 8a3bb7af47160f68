package lite_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// deadlineConfig serves one route to b with the given readTimeout and quota
// firstByteTimeout; tests set them far apart so each can tell which one fired.
func deadlineConfig(b, read, first string) string {
	return oneRoute("*", b).with("cachePingTTL: -1").withTop("readTimeout: "+read, "proxyProtocol: true").
		quota("firstByteTimeout: " + first).String()
}

// closedWithin asserts the proxy closes c within [lo, hi] of start without sending a
// byte, and returns how long it took.
func closedWithin(t *testing.T, c *client, start time.Time, lo, hi time.Duration) time.Duration {
	t.Helper()
	c.expectClosed()
	d := time.Since(start)
	if d < lo || d > hi {
		t.Fatalf("closed after %v, want between %v and %v", d, lo, hi)
	}
	return d
}

func TestSilentClientClosedAtFirstByteDeadline(t *testing.T) {
	b := newBackend(t, statusJSON("d", 0, 1))
	rec := &rejections{}
	p := startProxy(t, deadlineConfig(b.addr, "10s", "300ms"), proxyOpts{obs: rec})
	start := time.Now()
	c := dialProxy(t, p.addr)
	closedWithin(t, c, start, 250*time.Millisecond, 3*time.Second)
	if got := rec.afterClosed(t, 1); got != "timeout" {
		t.Fatalf("rejections = %q", got)
	}
	admissionSettled(t, p)
}

// A slowloris client sends its first byte at once and then one byte at a time: the
// first-byte deadline is met, readTimeout (from accept) still ends it.
func TestSlowlorisHandshakeEndsAtReadTimeout(t *testing.T) {
	b := newBackend(t, statusJSON("d", 0, 1))
	p := startProxy(t, deadlineConfig(b.addr, "800ms", "200ms"))
	start := time.Now()
	c := dialProxy(t, p.addr)
	hs := handshake(765, strings.Repeat("x", 200)+".example.com", wire.IntentLogin)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for _, bt := range hs {
			if _, err := c.Write([]byte{bt}); err != nil {
				return // closed by the proxy: what we wait for
			}
			<-tick.C
		}
	}()
	closedWithin(t, c, start, 700*time.Millisecond, 4*time.Second)
	_ = c.Close()
	<-done
	if b.Logins() != 0 {
		t.Fatal("the slow handshake reached the backend")
	}
	admissionSettled(t, p)
}

// The PROXY header from a trusted front has the first-byte deadline too: a front that
// stalls mid-header is cut as early as a silent client, or at once where the parser
// can tell (a v1 line must arrive in one read).
func TestStalledProxyHeaderCutAtFirstByteDeadline(t *testing.T) {
	tests := []struct {
		name    string
		partial []byte
		lo, hi  time.Duration
		reason  string
	}{
		{"v1 signature cut short", []byte("PROX"), 250 * time.Millisecond, 3 * time.Second, "timeout"},
		{"v1 line cut short", []byte("PROXY TCP4 203.0.113.5 "), 0, 2 * time.Second, "proxy-header"},
		{"v2 header cut short", proxyHeaderFrom(t, 2, "203.0.113.5:1")[:14], 250 * time.Millisecond, 3 * time.Second, "timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, statusJSON("d", 0, 1))
			rec := &rejections{}
			p := startProxy(t, deadlineConfig(b.addr, "10s", "300ms"), proxyOpts{obs: rec})
			start := time.Now()
			c := dialProxy(t, p.addr)
			c.send(tc.partial)
			closedWithin(t, c, start, tc.lo, tc.hi)
			if got := rec.afterClosed(t, 1); got != tc.reason {
				t.Fatalf("rejections = %q, want %q", got, tc.reason)
			}
			admissionSettled(t, p)
		})
	}
}

// Bad first frames are refused as soon as their first bytes show it, long before any
// deadline, whatever the client sends afterwards.
func TestMalformedFirstBytesRefusedAtOnce(t *testing.T) {
	bigLen := wire.AppendVarInt(nil, wire.MaxHandshakeLen+1)
	longHost := wire.AppendHandshake(nil, wire.Handshake{Protocol: 765, Address: strings.Repeat("a", wire.MaxAddressLen+1), Port: 1, Intent: 2})
	tests := []struct {
		name  string
		bytes []byte
	}{
		{"frame longer than the handshake cap", append(bigLen, 0x00)},
		{"length prefix of six bytes", []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}},
		{"length prefix of four bytes", []byte{0xFF, 0xFF, 0xFF, 0x01}},
		{"negative length", []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}},
		{"not a handshake packet id", []byte{0x10, 0x01, 0x00}},
		{"HTTP request", []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")},
		{"TLS client hello", []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03}},
		{"host longer than the address cap", longHost},
		{"zero-length frame", []byte{0x00, 0x00}},
		{"intent out of range", wire.AppendHandshake(nil, wire.Handshake{Protocol: 765, Address: "a", Port: 1, Intent: 7})},
	}
	b := newBackend(t, statusJSON("d", 0, 1))
	rec := &rejections{}
	p := startProxy(t, deadlineConfig(b.addr, "10s", "10s"), proxyOpts{obs: rec})
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			c := dialProxy(t, p.addr)
			c.send(tc.bytes)
			closedWithin(t, c, start, 0, 2*time.Second)
			rec.afterClosed(t, int64(i+1))
		})
	}
	if got, want := rec.list(), strings.TrimSuffix(strings.Repeat("malformed,", len(tests)), ","); got != want {
		t.Fatalf("rejections = %q, want %q", got, want)
	}
	if b.Logins() != 0 || b.StatusRequests() != 0 {
		t.Fatal("a malformed client reached the backend")
	}
	admissionSettled(t, p)
}

// A status connection answers one Status Request; a second one is not a client.
func TestOneStatusExchangePerConnection(t *testing.T) {
	b := newBackend(t, statusJSON("d", 0, 1))
	rec := &rejections{}
	p := startProxy(t, deadlineConfig(b.addr, "10s", "10s"), proxyOpts{obs: rec})
	c := dialProxy(t, p.addr)
	req := wire.AppendStatusRequest(nil)
	c.send(handshake(765, "a.example.com", wire.IntentStatus), req, req, req)
	if id, _, err := c.frame(); err != nil || id != 0 {
		t.Fatalf("first answer: id %d, %v", id, err)
	}
	c.expectClosed()
	if got := rec.afterClosed(t, 1); got != "malformed" || b.StatusRequests() != 1 {
		t.Fatalf("rejections %q, backend status requests %d", got, b.StatusRequests())
	}
	admissionSettled(t, p)
}

// Bytes that arrive with the PROXY header (the handshake in the same segment) must
// reach the backend exactly once and byte-exact.
func TestProxyHeaderWithHandshakeInOneSegment(t *testing.T) {
	b := newBackend(t, statusJSON("d", 0, 1))
	p := startProxy(t, deadlineConfig(b.addr, "10s", "10s"))
	for _, version := range []byte{1, 2} {
		c := dialProxy(t, p.addr)
		hs := handshake(765, "a.example.com", wire.IntentLogin)
		ls := loginStart("Alex")
		c.send(proxyHeaderFrom(t, version, "203.0.113.5:7"), hs, ls)
		if got := c.readN(len(hs) + len(ls)); !bytes.Equal(got, append(append([]byte(nil), hs...), ls...)) {
			t.Fatalf("v%d: echo %x", version, got)
		}
		if rec := b.next(t); !bytes.Equal(rec.Raw, hs) {
			t.Fatalf("v%d: backend got %x", version, rec.Raw)
		}
		_ = c.Close()
	}
	admissionSettled(t, p)
}
