package lite_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// statusConfig serves *.example.com and example.com from b with a 10s status cache.
func statusConfig(b string) string {
	return oneRoute("*.example.com", b).alsoHost("example.com").with("cachePingTTL: 10s").withTop("connectionTimeout: 500ms").String()
}

func TestStatusFromBackendThenCache(t *testing.T) {
	b := newBackend(t, statusJSON("Hello", 3, 100))
	clk := newManualClock()
	p := startProxy(t, statusConfig(b.addr), proxyOpts{now: clk.Now})

	for i := 0; i < 3; i++ {
		body, err := dialProxy(t, p.addr).status(765, "mc.example.com")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(body, `"Hello"`) {
			t.Fatalf("status %s", body)
		}
	}
	if n := b.StatusRequests(); n != 1 {
		t.Fatalf("backend got %d status requests, want 1 (cache)", n)
	}

	// TTL is counted from the fetch: hits do not extend it.
	clk.Advance(9 * time.Second)
	_, _ = dialProxy(t, p.addr).status(765, "mc.example.com")
	if n := b.StatusRequests(); n != 1 {
		t.Fatalf("refetched before TTL: %d", n)
	}
	clk.Advance(time.Second)
	_, _ = dialProxy(t, p.addr).status(765, "mc.example.com")
	if n := b.StatusRequests(); n != 2 {
		t.Fatalf("after TTL backend got %d requests, want 2", n)
	}
}

// TestStatusCacheKeysCannotBeMultiplied: protocol numbers of no release that the
// route has not seen a login use share one key, and so do the hosts one wildcard pattern matches; a
// protocol learned from a login gets its own key, asked with that protocol.
func TestStatusCacheKeysCannotBeMultiplied(t *testing.T) {
	b := newBackend(t, statusJSON("Hello", 3, 100))
	p := startProxy(t, statusConfig(b.addr))
	ping := func(proto int32, host string) {
		t.Helper()
		if _, err := dialProxy(t, p.addr).status(proto, host); err != nil {
			t.Fatal(err)
		}
	}
	for i, host := range []string{"a.example.com", "b.example.com", "B.example.com.", "zz.example.com"} {
		ping(800+int32(i), host) // between releases: no release used these
		ping(100000+int32(i), host)
	}
	if n := b.StatusRequests(); n != 1 {
		t.Fatalf("8 pings with new protocols and hosts cost %d fetches, want 1", n)
	}
	if got := b.StatusHandshake().Protocol; got != -1 {
		t.Fatalf("shared key fetched with protocol %d, want -1 (no client's choice)", got)
	}
	c := dialProxy(t, p.addr)
	const snapshot = 0x40000000 + 100 // not a release: known only once a login used it
	c.send(handshake(snapshot, "a.example.com", wire.IntentLogin), loginStart("Steve"))
	b.next(t)
	ping(snapshot, "q.example.com")
	ping(snapshot, "r.example.com")
	if n := b.StatusRequests(); n != 2 || b.StatusHandshake().Protocol != snapshot {
		t.Fatalf("after a snapshot login: %d fetches (want 2), last asked with %d (want %d)", n, b.StatusHandshake().Protocol, snapshot)
	}
	ping(765, "example.com") // the route's other pattern: its own key
	if n := b.StatusRequests(); n != 3 {
		t.Fatalf("%d fetches, want 3", n)
	}
}

func TestStatusSingleflight(t *testing.T) {
	b := newBackend(t, statusJSON("Burst", 0, 20))
	b.SetHangStatus(false)
	p := startProxy(t, statusConfig(b.addr))
	const n = 30
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Go(func() {
			if _, err := dialProxy(t, p.addr).status(765, "burst.example.com"); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := b.StatusRequests(); got != 1 {
		t.Fatalf("a burst of %d pings made %d backend requests, want 1", n, got)
	}
}

func TestStatusHungBackendFallsBack(t *testing.T) {
	b := newBackend(t, statusJSON("never", 0, 0))
	b.SetHangStatus(true)
	p := startProxy(t, oneRoute("*", b.addr).with(`fallback:
  motd: "§cServer is starting"
  version: {name: "maintenance"}
  players: {online: 0, max: 0}`).withTop("connectionTimeout: 300ms").String())
	start := time.Now()
	body, err := dialProxy(t, p.addr).status(765, "x.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("hung backend stalled the status for %v", el)
	}
	var st struct {
		Version struct {
			Name     string `json:"name"`
			Protocol int32  `json:"protocol"`
		} `json:"version"`
		Description json.RawMessage `json:"description"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("fallback is not JSON: %v: %s", err, body)
	}
	if st.Version.Name != "maintenance" || st.Version.Protocol != 765 {
		t.Fatalf("fallback version %+v, want name maintenance echoing protocol 765", st.Version)
	}
	if !strings.Contains(string(st.Description), "Server is starting") {
		t.Fatalf("fallback motd %s", st.Description)
	}
}

func TestStatusAllDownWithoutFallbackCloses(t *testing.T) {
	p := startProxy(t, statusConfig(refusedAddr(t)))
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "x.example.com", wire.IntentStatus), wire.AppendStatusRequest(nil))
	c.expectClosed()
}

func TestStatusLastKnownGood(t *testing.T) {
	b := newBackend(t, statusJSON("Still here", 5, 50))
	clk := newManualClock()
	p := startProxy(t, statusConfig(b.addr), proxyOpts{now: clk.Now})
	if _, err := dialProxy(t, p.addr).status(765, "mc.example.com"); err != nil {
		t.Fatal(err)
	}
	b.kill()
	clk.Advance(30 * time.Second) // past the TTL, within the last-known-good bound
	body, err := dialProxy(t, p.addr).status(765, "mc.example.com")
	if err != nil {
		t.Fatalf("want the last good status while the backend is down: %v", err)
	}
	if !strings.Contains(body, "Still here") {
		t.Fatalf("status %s", body)
	}
	clk.Advance(time.Hour)
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "mc.example.com", wire.IntentStatus), wire.AppendStatusRequest(nil))
	c.expectClosed()
}

func TestPingWithoutStatusRequest(t *testing.T) {
	b := newBackend(t, statusJSON("x", 0, 1))
	p := startProxy(t, statusConfig(b.addr))
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "mc.example.com", wire.IntentStatus), wire.AppendPing(nil, 99))
	id, payload, err := c.frame()
	if err != nil || id != wire.IDPing {
		t.Fatalf("pong: id=%d err=%v", id, err)
	}
	if v, _ := wire.ParsePing(payload); v != 99 {
		t.Fatalf("pong %d", v)
	}
	c.expectClosed()
	if n := b.StatusRequests(); n != 0 {
		t.Fatalf("a bare ping reached the backend %d times", n)
	}
}

func TestStatusUnknownHostCloses(t *testing.T) {
	b := newBackend(t, statusJSON("x", 0, 1))
	p := startProxy(t, statusConfig(b.addr))
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "other.org", wire.IntentStatus), wire.AppendStatusRequest(nil))
	c.expectClosed()
}

func TestLegacyPing(t *testing.T) {
	b := newBackend(t, statusJSON("Legacy MOTD", 7, 70))
	p := startProxy(t, oneRoute("old.example.com", b.addr).
		route("*", refusedAddr(t)).with("fallback: {motd: Catch-all, players: {online: 1, max: 2}}").
		withTop("connectionTimeout: 1s").String())

	t.Run("1.6 routed by host", func(t *testing.T) {
		c := dialProxy(t, p.addr)
		c.send(legacy16Ping("old.example.com", 25565))
		got := readLegacyKick(t, c)
		if !strings.HasPrefix(got, "§1\x00") || !strings.Contains(got, "\x00Legacy MOTD\x007\x0070") {
			t.Fatalf("kick %q", got)
		}
	})
	t.Run("1.4 goes to catch-all", func(t *testing.T) {
		c := dialProxy(t, p.addr)
		c.send([]byte{0xFE, 0x01})
		got := readLegacyKick(t, c)
		if !strings.Contains(got, "\x00Catch-all\x001\x002") {
			t.Fatalf("kick %q", got)
		}
	})
	t.Run("beta FE alone", func(t *testing.T) {
		c := dialProxy(t, p.addr)
		c.send([]byte{0xFE})
		if got := readLegacyKick(t, c); got != "Catch-all§1§2" {
			t.Fatalf("kick %q", got)
		}
	})
}
