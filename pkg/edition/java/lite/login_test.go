package lite_test

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// routingConfig has a route of each kind of host pattern.
func routingConfig(lobby, games, play, multi string) string {
	return oneRoute("lobby.example.com", lobby).route("*.games.example.com", games).route("play-?.example.com", play).
		route("alpha.example.com", multi).alsoHost("beta.example.com").
		withTop("bind: 127.0.0.1:0", "connectionTimeout: 2s", "readTimeout: 5s").String()
}

func TestLoginRoutesByHost(t *testing.T) {
	lobby := newBackend(t, "")
	games := newBackend(t, "")
	play := newBackend(t, "")
	multi := newBackend(t, "")
	p := startProxy(t, routingConfig(lobby.addr, games.addr, play.addr, multi.addr))

	cases := []struct {
		name string
		host string
		want *backend
	}{
		{"exact", "lobby.example.com", lobby},
		{"upper case", "LOBBY.Example.COM", lobby},
		{"trailing dot", "lobby.example.com.", lobby},
		{"forge FML2 suffix", "lobby.example.com\x00FML2\x00", lobby},
		{"forge FML3 suffix", "lobby.example.com\x00FML3\x00", lobby},
		{"tcpshield suffix", "lobby.example.com///1.2.3.4:5555///1700000000///sig", lobby},
		{"wildcard", "pvp.games.example.com", games},
		{"wildcard with dots in the run", "eu.pvp.games.example.com", games},
		{"question mark", "play-1.example.com", play},
		{"host list second entry", "beta.example.com", multi},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialProxy(t, p.addr)
			c.login(tc.host)
			rec := tc.want.next(t)
			if rec.Handshake.Address != tc.host {
				t.Fatalf("backend got address %q, want %q (verbatim)", rec.Handshake.Address, tc.host)
			}
		})
	}
}

func TestLoginUnknownHostGetsDisconnect(t *testing.T) {
	lobby := newBackend(t, "")
	p := startProxy(t, routingConfig(lobby.addr, lobby.addr, lobby.addr, lobby.addr))
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "nowhere.example.org", wire.IntentLogin), loginStart("Alex"))
	text := c.disconnectText()
	if !strings.Contains(text, "no server at this address") {
		t.Fatalf("disconnect text %s", text)
	}
	c.expectClosed()
	if n := lobby.Logins(); n != 0 {
		t.Fatalf("backend got %d logins", n)
	}
}

func TestHandshakeAndLaterBytesReplayedExactly(t *testing.T) {
	b := newBackend(t, "")
	p := startProxy(t, oneRoute("*", b.addr).String())
	c := dialProxy(t, p.addr)
	// A handshake with a non-minimal field layout is still forwarded byte for byte, and
	// the Login Start that arrived in the same segment is not lost.
	hs := handshake(767, "mc.example.com\x00FML3\x00", wire.IntentTransfer)
	ls := loginStart("Notch")
	c.send(hs, ls)
	got := c.readN(len(hs) + len(ls))
	if !bytes.Equal(got, append(append([]byte(nil), hs...), ls...)) {
		t.Fatalf("replay differs")
	}
	// Bytes sent after the session started flow both ways too.
	payload := bytes.Repeat([]byte("minecraft"), 10000)
	go func() { c.send(payload) }()
	if echo := c.readN(len(payload)); !bytes.Equal(echo, payload) {
		t.Fatal("relayed bytes differ")
	}
}

func TestProxyProtocolV2HeaderToBackend(t *testing.T) {
	b := newBackendWith(t, mctest.Options{Status: statusJSON("pp", 1, 10), ProxyProtocol: true})
	p := startProxy(t, oneRoute("pp.example.com", b.addr).with("proxyProtocol: true").String())
	c := dialProxy(t, p.addr)
	c.login("pp.example.com")
	rec := b.next(t)
	if rec.Proxy == nil || rec.Proxy.Version != 2 {
		t.Fatalf("want PROXY v2 header, got %+v", rec.Proxy)
	}
	src, dst, ok := rec.Proxy.TCPAddrs()
	if !ok {
		t.Fatalf("header has no TCP addresses: %+v", rec.Proxy)
	}
	if src.String() != c.LocalAddr().String() {
		t.Fatalf("PROXY source %s, want the client %s", src, c.LocalAddr())
	}
	if dst.String() != p.addr {
		t.Fatalf("PROXY destination %s, want the proxy listener %s", dst, p.addr)
	}
}

// modifyVirtualHost replaces only the host, as Gate does: the Forge suffix and the
// client's port field reach the backend unchanged.
func TestModifyVirtualHostKeepsSuffixAndClientPort(t *testing.T) {
	b := newBackend(t, "")
	p := startProxy(t, oneRoute("public.example.com", b.addr).with("modifyVirtualHost: true").String())
	c := dialProxy(t, p.addr)
	const clientPort = 25577 // what the player typed; the backend listens elsewhere
	c.send(wire.AppendHandshake(nil, wire.Handshake{Protocol: 765, Address: "Public.Example.com\x00FML2\x00", Port: clientPort, Intent: wire.IntentLogin}),
		loginStart("Steve"))
	rec := b.next(t)
	host, _, _ := net.SplitHostPort(b.addr)
	if want := host + "\x00FML2\x00"; rec.Handshake.Address != want {
		t.Fatalf("address %q, want %q", rec.Handshake.Address, want)
	}
	if got := rec.Handshake.Port; got != clientPort {
		t.Fatalf("port %d, want the client's %d", got, clientPort)
	}
}

// TestTCPShieldRealIPCannotBeForged: 127.0.0.1 is a trusted TCPShield front, 127.0.0.2
// a player connecting directly. Only the front's block reaches the backend as sent; a
// player's own block is replaced by one naming the player's real address, on logins and
// on the status fetch alike, and Forge markers stay.
func TestTCPShieldRealIPCannotBeForged(t *testing.T) {
	b := newBackend(t, statusJSON("x", 1, 10))
	p := startProxy(t, oneRoute("*.example.com", b.addr).with("tcpShieldRealIP: true", "cachePingTTL: -1").
		withLite("tcpShieldTrustedProxies: [127.0.0.1]").withTop("quota: {status: {enabled: false}}").String())
	dial := func(t *testing.T, from string) *client {
		conn, err := dialFrom(from, p.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		mc := mctest.NewClient(conn)
		return &client{t: t, Client: mc, br: mc.R}
	}
	wantOwnBlock := func(t *testing.T, got string, c *client, marker string) {
		t.Helper()
		host, suffix := wire.SplitAddress(got)
		parts := strings.Split(strings.TrimSuffix(suffix, marker), "///")
		if host != "mc.example.com" || len(parts) != 3 || parts[1] != c.LocalAddr().String() || !strings.HasSuffix(suffix, marker) {
			t.Fatalf("backend saw %q, want mc.example.com///%s///<unix time>%q", got, c.LocalAddr(), marker)
		}
	}
	forged := "mc.example.com///6.6.6.6:1234///1700000000///c2lnbmF0dXJl"

	for _, tc := range []struct{ name, address, marker string }{
		{"untrusted: no block gets the client address", "mc.example.com\x00FML3\x00", "\x00FML3\x00"},
		{"untrusted: forged block is replaced", forged + "\x00FML3\x00", "\x00FML3\x00"},
		{"untrusted: block hidden after the forge marker is dropped", "mc.example.com\x00FML2\x00///6.6.6.6:1///1", "\x00FML2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, "127.0.0.2")
			c.send(handshake(765, tc.address, wire.IntentLogin), loginStart("Steve"))
			wantOwnBlock(t, b.next(t).Handshake.Address, c, tc.marker)
		})
	}
	t.Run("untrusted: forged block on a status ping is replaced", func(t *testing.T) {
		c := dial(t, "127.0.0.2")
		if _, err := c.status(765, forged); err != nil {
			t.Fatal(err)
		}
		wantOwnBlock(t, b.StatusHandshake().Address, c, "")
	})
	t.Run("trusted front: its block passes untouched", func(t *testing.T) {
		c := dial(t, "127.0.0.1")
		c.send(handshake(765, forged, wire.IntentLogin), loginStart("Steve"))
		if rec := b.next(t); rec.Handshake.Address != forged {
			t.Fatalf("address %q, want untouched %q", rec.Handshake.Address, forged)
		}
	})
}

func TestFailoverOnRefusedBackend(t *testing.T) {
	good := newBackend(t, "")
	p := startProxy(t, oneRoute("*", refusedAddr(t), good.addr).withTop("connectionTimeout: 2s").String())
	c := dialProxy(t, p.addr)
	c.login("any.example.com")
	good.next(t)
}

func TestFailoverOnBlackholedBackend(t *testing.T) {
	good := newBackend(t, "")
	hole := blackhole(t)
	p := startProxy(t, oneRoute("*", hole, good.addr).withTop("connectionTimeout: 300ms").String())
	start := time.Now()
	c := dialProxy(t, p.addr)
	c.login("any.example.com")
	good.next(t)
	// The black-holed dial must have been cut by connectionTimeout, not the OS default.
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("failover took %v", el)
	}
}

func TestAllBackendsDownDisconnect(t *testing.T) {
	dead := refusedAddr(t)
	p := startProxy(t, oneRoute("custom.example.com", dead).
		with(`disconnect: {unavailable: {"text": "Lobby is down for maintenance", "color": "gold"}}`).
		route("*", dead, refusedAddr(t)).
		withLite(`disconnect: {unavailable: "§cThe network is restarting"}`).withTop("connectionTimeout: 1s").String())
	cases := []struct{ host, want string }{
		{"custom.example.com", "Lobby is down for maintenance"},
		{"other.example.com", "The network is restarting"},
	}
	for _, tc := range cases {
		c := dialProxy(t, p.addr)
		c.send(handshake(765, tc.host, wire.IntentLogin), loginStart("Steve"))
		if text := c.disconnectText(); !strings.Contains(text, tc.want) {
			t.Fatalf("%s: disconnect %s, want %q", tc.host, text, tc.want)
		}
		c.expectClosed()
	}
}

func TestBuiltInUnavailableText(t *testing.T) {
	p := startProxy(t, oneRoute("*", refusedAddr(t)).String())
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "x.example.com", wire.IntentLogin), loginStart("Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("disconnect %s", text)
	}
}

func TestMalformedHandshakeCloses(t *testing.T) {
	b := newBackend(t, "")
	p := startProxy(t, oneRoute("*", b.addr).String())
	cases := map[string][]byte{
		"http request":     []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"6-byte varint":    {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01},
		"oversize length":  {0xFF, 0xFF, 0x7F},
		"wrong packet id":  wire.AppendFrame(nil, 0x05, []byte{1, 2, 3}),
		"intent 9":         wire.AppendHandshake(nil, wire.Handshake{Protocol: 765, Address: "a", Port: 1, Intent: 9}),
		"tls client hello": {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03},
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			c := dialProxy(t, p.addr)
			c.send(raw)
			c.expectClosed()
		})
	}
	if n := b.Logins() + b.StatusRequests(); n != 0 {
		t.Fatalf("backend saw %d connections", n)
	}
}
