package lite_test

import (
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// mc-router's routing cases (server/routes_test.go
// Test_routesImpl_FindBackendForServerAddress, and the host rules of
// routes.go's FindBackendForServerAddress) as logins through the proxy: the
// player reaches the backend mc-router would pick, which receives the
// handshake exactly as the client sent it. Pure matching of the same cases is
// route/mcrouter_test.go.
func TestMCRouterRoutingCasesLogin(t *testing.T) {
	typical, forge, domain, play, def := newBackend(t, ""), newBackend(t, ""), newBackend(t, ""), newBackend(t, ""), newBackend(t, "")
	p := startProxy(t, oneRoute("typical.my.domain", typical.addr).route("forge.my.domain", forge.addr).
		route("my.domain", domain.addr).route("play.example.com", play.addr).
		route("*", def.addr). // mc-router's default route (--default, mc-router.default)
		withTop("connectionTimeout: 2s").quotasOff().String())
	for _, tc := range []struct {
		name, host string
		want       *backend
	}{
		{"typical", "typical.my.domain", typical},
		{"forge", "forge.my.domain\x00FML2\x00", forge},
		{"root zone indicator", "my.domain.", domain},
		{"root zone indicator and forge", "forge.my.domain.\x00FML2\x00", forge},
		// routes.go: the first "\" ends the host (an Infinity-filter front).
		{"infinity filter backslash", `play.example.com\abc\1.2.3.4`, play},
		{"infinity filter backslash and forge", "play.example.com\\GUID\\203.0.113.7\x00FML3\x00", play},
		// routes.go: mappings are matched in lower case.
		{"case insensitive", "TYPICAL.My.Domain", typical},
		// routes.go: tcpShieldPattern strips "///..." before matching.
		{"tcpshield suffix", "typical.my.domain///203.0.113.7:51234///1700000000///sig", typical},
		// routes.go: no mapping matched, the default route takes it.
		{"default route", "unknown.my.domain", def},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialProxy(t, p.addr)
			c.login(tc.host)
			if rec := tc.want.next(t); rec.Handshake.Address != tc.host {
				t.Fatalf("backend got address %q, want %q (verbatim)", rec.Handshake.Address, tc.host)
			}
		})
	}
}

// Test_routesImpl_GetDefaultRouteWithoutDefaultRoute: without a default route
// an unknown host reaches no backend. We differ on purpose in what the player
// sees: mc-router closes the connection without a word, this proxy sends a
// Login Disconnect saying there is no server at that address (its
// `disconnect.unknownHost`), so the player knows the address is wrong.
func TestMCRouterNoDefaultRouteLogin(t *testing.T) {
	b := newBackend(t, "")
	p := startProxy(t, oneRoute("typical.my.domain", b.addr).String())
	for _, host := range []string{"unknown.my.domain", `\typical.my.domain`} {
		c := dialProxy(t, p.addr)
		c.send(handshake(765, host, wire.IntentLogin), loginStart("Alex"))
		if text := c.disconnectText(); !strings.Contains(text, "no server at this address") {
			t.Fatalf("%q: disconnect text %s", host, text)
		}
		c.expectClosed()
	}
	if n := b.Logins(); n != 0 {
		t.Fatalf("backend got %d logins", n)
	}
}
