package lite_test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// redirectProxy serves a redirect route, old.example.com -> the proxy's own address
// under the host 127.0.0.1, whose route leads to the second backend. The first
// backend only answers the redirect route's pings.
func redirectProxy(t *testing.T, top ...string) (p *proxy, old, landing *backend, to string) {
	t.Helper()
	ln := mctest.Listen(t)
	to = ln.Addr().String()
	old, landing = newBackend(t, statusJSON("old", 3, 20)), newBackend(t, statusJSON("landing", 0, 20))
	cfg := oneRoute("old.example.com", old.addr).with("transfer: '"+to+"'").
		route("127.0.0.1", landing.addr).withTop(top...).quotasOff()
	return startProxy(t, cfg.String(), proxyOpts{ln: ln}), old, landing, to
}

// transferFrame reads the Transfer after a login the proxy completes itself.
func followTransfer(t *testing.T, c *client, protocol int32) (host string, port int) {
	t.Helper()
	ids, _ := wire.LookupTransfer(protocol)
	if id, _, err := c.frame(); err != nil || id != ids.LoginSuccess {
		t.Fatalf("first frame 0x%02x (%v), want login success", id, err)
	}
	c.send(wire.AppendFrame(nil, ids.LoginAcknowledged, nil))
	id, p, err := c.frame()
	if err != nil || id != ids.Transfer {
		t.Fatalf("frame 0x%02x (%v), want transfer", id, err)
	}
	host, v, err := wire.ParseTransfer(p)
	if err != nil {
		t.Fatal(err)
	}
	return host, int(v)
}

// A 1.20.5+ player on a redirect route is logged in by the proxy and transferred to
// the configured address; following it as a vanilla client does (intent 3) lands them
// on the other route's backend. The redirect route's backend is never dialled.
func TestRedirectRouteTransfersAndThePlayerLands(t *testing.T) {
	p, old, landing, to := redirectProxy(t)
	_ = p
	for _, protocol := range []int32{766, 767, 775} {
		c := dialProxy(t, to)
		c.send(handshake(protocol, "old.example.com", wire.IntentLogin), loginStart("Steve"))
		host, port := followTransfer(t, c, protocol)
		if net.JoinHostPort(host, strconv.Itoa(port)) != to {
			t.Fatalf("protocol %d: transfer to %s:%d, want %s", protocol, host, port, to)
		}
		_ = c.Close()
		again := dialProxy(t, net.JoinHostPort(host, strconv.Itoa(port)))
		again.send(handshake(protocol, host, wire.IntentTransfer), loginStart("Steve"))
		got := landing.next(t)
		if got.Handshake.Intent != wire.IntentTransfer || got.Handshake.Address != host || got.Handshake.Protocol != protocol {
			t.Fatalf("protocol %d: landing backend got %+v", protocol, got.Handshake)
		}
		_ = again.Close()
	}
	if n := old.Accepted(); n != 0 {
		t.Fatalf("the redirect route's backend was dialled %d times for logins", n)
	}
}

// Clients without the Transfer packet (1.19, 1.20.4), and one newer than the
// generated table, are told the address in a Login Disconnect: never a guess.
func TestRedirectRouteTellsOtherClientsTheAddress(t *testing.T) {
	_, old, _, to := redirectProxy(t)
	steve := wire.LoginStart{Name: "Steve", HasUUID: true}
	for _, protocol := range []int32{759, 765, 9999} {
		c := dialProxy(t, to)
		c.send(handshake(protocol, "old.example.com", wire.IntentLogin), wire.AppendLoginStart(nil, protocol, steve, nil))
		if text := c.disconnectText(); !strings.Contains(text, to) {
			t.Fatalf("protocol %d: told %s, want the address %s", protocol, text, to)
		}
	}
	if n := old.Accepted(); n != 0 {
		t.Fatalf("the redirect route's backend was dialled %d times", n)
	}
}

// Pings of a redirect route are answered as its status mode says (backend here).
func TestRedirectRoutePingsAsItsStatusSays(t *testing.T) {
	_, _, _, to := redirectProxy(t)
	got, err := dialProxy(t, to).status(767, "old.example.com")
	if err != nil || !strings.Contains(got, `"old"`) {
		t.Fatalf("status %s (%v), want the route's backend's", got, err)
	}
}

// A client that never acknowledges its Login Success is cut at readTimeout, and one
// that sends an oversized frame at once: both bounded, nothing dialled.
func TestRedirectRouteBoundsHostileClients(t *testing.T) {
	_, old, _, to := redirectProxy(t, "readTimeout: 500ms")
	for _, tc := range []struct {
		name string
		send []byte
	}{
		{"never acknowledges", nil},
		{"oversized frame", []byte{0xff, 0xff, 0x7f}},
		{"garbage", []byte{0x02, 0x55, 0x55}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialProxy(t, to)
			c.send(handshake(768, "old.example.com", wire.IntentLogin), loginStart("Steve"))
			if id, _, err := c.frame(); err != nil || id != 0x02 {
				t.Fatalf("frame 0x%02x (%v), want login success", id, err)
			}
			start := time.Now()
			if tc.send != nil {
				c.send(tc.send)
			}
			c.expectClosed()
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("closed after %v", d)
			}
		})
	}
	if n := old.Accepted(); n != 0 {
		t.Fatalf("backend dialled %d times", n)
	}
}
