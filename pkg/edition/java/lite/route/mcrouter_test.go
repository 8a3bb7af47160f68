package route_test

import (
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// mc-router's routing cases (itzg/mc-router server/routes_test.go, and the
// host rules of routes.go FindBackendForServerAddress that its tests do not
// spell out) as pure matching: the handshake address as the client sends it,
// cleaned the way the proxy does (wire.CleanHost) and matched against a table
// of mc-router's mappings. Each case is named after mc-router's. Real logins
// of the same cases are lite's TestMCRouterRoutingCasesLogin; the wake cases
// (ScaleKey, LoadingMOTD) are package wake's mcrouter_test.go.

// mapping is one of mc-router's CreateMapping(serverAddress, backend) calls.
type mapping struct{ serverAddress, backend string }

// find answers what mc-router's FindBackendForServerAddress does for addr:
// the backend and the mapping's server address ("" and false when none).
func find(t *testing.T, ms []mapping, addr string) (backend, server string, ok bool) {
	t.Helper()
	specs := make([]route.Spec, len(ms))
	for i, m := range ms {
		specs[i] = route.Spec{Hosts: []string{m.serverAddress}, Backends: []string{m.backend}}
	}
	table, err := route.Compile(specs)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := table.Match(wire.CleanHost(addr))
	if !ok {
		return "", "", false
	}
	return m.Backends[0], m.Pattern, true
}

// Test_routesImpl_FindBackendForServerAddress, its four cases and the host
// rules of routes.go.
func TestMCRouterFindBackendForServerAddress(t *testing.T) {
	for _, tt := range []struct {
		name    string
		mapping mapping
		addr    string
		want    string
	}{
		{"typical", mapping{"typical.my.domain", "backend:25565"}, "typical.my.domain", "backend:25565"},
		{"forge", mapping{"forge.my.domain", "backend:25566"}, "forge.my.domain\x00FML2\x00", "backend:25566"},
		{"root zone indicator", mapping{"my.domain", "backend:25566"}, "my.domain.", "backend:25566"},
		{"root zone indicator and forge", mapping{"forge.my.domain", "backend:25566"}, "forge.my.domain.\x00FML2\x00", "backend:25566"},
		// routes.go: "Trim off infinity-filter backslash address parts".
		{"infinity filter backslash", mapping{"play.example.com", "backend:25565"}, `play.example.com\abc\1.2.3.4`, "backend:25565"},
		{"infinity filter backslash after forge marker", mapping{"play.example.com", "backend:25565"}, "play.example.com\x00FML3\x00\\x", "backend:25565"},
		// routes.go: mappings and addresses are lower-cased.
		{"case", mapping{"Typical.My.Domain", "backend:25565"}, "TYPICAL.my.DOMAIN", "backend:25565"},
		// routes.go: tcpShieldPattern "///.*" is stripped.
		{"tcpshield suffix", mapping{"typical.my.domain", "backend:25565"}, "typical.my.domain///203.0.113.7:51234///1700000000///sig", "backend:25565"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			backend, server, ok := find(t, []mapping{tt.mapping}, tt.addr)
			if !ok || backend != tt.want {
				t.Fatalf("%q: backend %q (matched %v), want %q", tt.addr, backend, ok, tt.want)
			}
			// mc-router also returns the mapping's server address (lower-cased).
			if want := strings.ToLower(tt.mapping.serverAddress); server != want {
				t.Fatalf("%q: matched %q, want %q", tt.addr, server, want)
			}
		})
	}
}

// Where mc-router and this proxy read an address differently on purpose.
func TestMCRouterHostRulesWeDiffer(t *testing.T) {
	ms := []mapping{{"my.domain", "backend:25565"}}
	// routes.go simplifySRV (--simplify-srv, off by default in mc-router too)
	// drops everything up to "_tcp.". No client sends an SRV name in its
	// handshake; a route that wants one lists it, or "*._tcp.my.domain".
	if _, _, ok := find(t, ms, "_minecraft._tcp.my.domain"); ok {
		t.Fatal("an SRV name matched without being listed")
	}
	withSRV := append(ms, mapping{"*._tcp.my.domain", "backend:25565"})
	if b, _, ok := find(t, withSRV, "_minecraft._tcp.my.domain"); !ok || b != "backend:25565" {
		t.Fatalf("a listed SRV pattern: %q, %v", b, ok)
	}
	// mc-router keeps a ":port" typed by the player as part of the host (no
	// mapping then matches); the proxy drops it: the port is not the host.
	if b, _, ok := find(t, ms, "my.domain:25565"); !ok || b != "backend:25565" {
		t.Fatalf("host with a typed port: %q, %v", b, ok)
	}
}

// mc-router's default route (--default, the mc-router.default label,
// SetDefaultRoute) is a route whose host is "*": the routes_test.go cases
// about it, and Test_routesImpl_GetDefaultRouteWithoutDefaultRoute.
func TestMCRouterDefaultRoute(t *testing.T) {
	ms := []mapping{{"mc.example.com", "backend:25565"}, {"*", "default:25565"}}
	if b, _, ok := find(t, ms, "other.example.com"); !ok || b != "default:25565" {
		t.Fatalf("default route: %q, %v", b, ok)
	}
	if b, _, _ := find(t, ms, "mc.example.com"); b != "backend:25565" {
		t.Fatalf("a mapping before the default: %q", b)
	}
	t.Run("GetDefaultRouteWithoutDefaultRoute", func(t *testing.T) {
		if b, _, ok := find(t, nil, "mc.example.com"); ok {
			t.Fatalf("an empty table matched, backend %q", b)
		}
		if _, _, ok := find(t, ms[:1], "other.example.com"); ok {
			t.Fatal("an unknown host matched without a default route")
		}
	})
	// mc-router tries every mapping before its default route, wherever it was
	// set. A discovered default (a container labelled mc-router.default) is a
	// catch-all that comes after every other pattern here too; in the file,
	// routes keep the order written, so a "*" written first takes every host
	// (and Lint says so). Write the catch-all last.
	t.Run("default route written first in the file", func(t *testing.T) {
		first := []mapping{ms[1], ms[0]}
		if b, _, _ := find(t, first, "mc.example.com"); b != "default:25565" {
			t.Fatalf("file order not kept: %q", b)
		}
		specs := []route.Spec{{Hosts: []string{"*"}, Backends: []string{"d:1"}}, {Hosts: []string{"mc.example.com"}, Backends: []string{"b:1"}}}
		if f := route.Lint(specs); len(f) != 1 || f[0].Route != 1 {
			t.Fatalf("lint = %v, want the shadowed host", f)
		}
		specs[0].Group, specs[1].Group = 1, 2 // two discovered routes
		table, err := route.Compile(specs)
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := table.Match("mc.example.com"); m.Route != 1 {
			t.Fatalf("across sources the catch-all won: route %d", m.Route)
		}
	})
}

// routes_test.go's RoutesListener cases. mc-router tells listeners (its
// webhook notifier: route-added, route-removed, default-route-set,
// default-route-removed) as it mutates one shared map. Here a change of the
// route set compiles a new table, applied at once (reload.md) and shown by
// /api/v1/routes, posted nowhere: there is no route webhook
// (from-mc-router.md). Each case asserts the routing its events announce.
func TestMCRouterRouteChanges(t *testing.T) {
	mc := mapping{"mc.example.com", "backend:25565"}
	def := mapping{"*", "default:25565"}
	routed := func(ms []mapping, host string) string {
		b, _, _ := find(t, ms, host)
		return b
	}
	t.Run("OnRouteAdded", func(t *testing.T) {
		if routed(nil, "mc.example.com") != "" || routed([]mapping{mc}, "MC.example.com") != "backend:25565" {
			t.Fatal("an added route does not route")
		}
	})
	for _, name := range []string{"OnRouteRemoved", "OnRouteRemoved_withoutDownScaler"} {
		t.Run(name, func(t *testing.T) {
			if routed([]mapping{{"other.example.com", "o:1"}}, "mc.example.com") != "" {
				t.Fatal("a removed route still routes")
			}
		})
	}
	t.Run("OnDefaultRouteAdded", func(t *testing.T) {
		if routed([]mapping{def}, "anything.example.com") != "default:25565" {
			t.Fatal("the default route does not take an unknown host")
		}
	})
	for _, name := range []string{"OnDefaultRouteRemoved_dueToReset", "ResetCallsOnRouteRemovedForAllRoutes", "NilListenersHandled"} {
		t.Run(name, func(t *testing.T) {
			for _, h := range []string{"mc1.example.com", "mc2.example.com", "mc3.example.com", "x"} {
				if b := routed(nil, h); b != "" {
					t.Fatalf("%s routes to %q after a reset", h, b)
				}
			}
		})
	}
	t.Run("OnDefaultRouteRemoved_dueToDeleteDefaultRoute", func(t *testing.T) {
		ms := []mapping{mc}
		if routed(ms, "other.example.com") != "" || routed(ms, "mc.example.com") != "backend:25565" {
			t.Fatal("removing the default changed more than the default")
		}
	})
	t.Run("DeleteNonExistentRouteDoesNotNotifyListener", func(t *testing.T) {
		before, after := []mapping{mc, def}, []mapping{mc, def} // removing nonexistent.example.com
		for _, h := range []string{"mc.example.com", "nonexistent.example.com"} {
			if routed(before, h) != routed(after, h) {
				t.Fatalf("%s changed", h)
			}
		}
	})
}

// TestMCRouterRouteChangesMultipleListeners: every reader sees one route set. A
// table is never changed: a reader holding the old one answers as before.
func TestMCRouterRouteChangesMultipleListeners(t *testing.T) {
	mc := mapping{"mc.example.com", "backend:25565"}
	{
		old, err := route.Compile([]route.Spec{{Hosts: []string{mc.serverAddress}, Backends: []string{mc.backend}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := route.Compile(nil); err != nil {
			t.Fatal(err)
		}
		if m, ok := old.Match("mc.example.com"); !ok || m.Backends[0] != mc.backend {
			t.Fatal("a new table changed the old one")
		}
	}
}
