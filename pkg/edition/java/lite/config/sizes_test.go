package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// flowList writes n items made by item as a YAML flow list.
func flowList(n int, item func(i int) string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = item(i)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

func TestFileRouteOverASizeCapIsAnErrorAtItsKey(t *testing.T) {
	host := func(i int) string { return fmt.Sprintf("h%d.example.com", i) }
	backend := func(i int) string { return fmt.Sprintf("10.0.%d.%d", i/256, i%256) }
	cases := []struct {
		name, hosts, backends, want string
	}{
		{"hosts at the cap", flowList(MaxHostsPerRoute, host), "b", ""},
		{"one host over", flowList(MaxHostsPerRoute+1, host), "b",
			"config.yml:6: config.lite.routes[0].host: 257 host patterns (limit 256): split the route"},
		{"backends at the cap", "a.test", flowList(MaxBackendsPerRoute, backend), ""},
		{"one backend over", "a.test", flowList(MaxBackendsPerRoute+1, backend),
			"config.yml:7: config.lite.routes[0].backend: 1025 backends (limit 1024): split the route"},
		{"a long host pattern", strings.Repeat("a", maxHostPattern+1), "b",
			"config.yml:6: config.lite.routes[0].host: invalid host pattern \"" + strings.Repeat("a", 64) +
				"...\": longer than 255 bytes; no client sends a host that long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "config:\n  lite:\n    enabled: true\n    routes:\n      -\n        host: " + tc.hosts +
				"\n        backend: " + tc.backends + "\n"
			cfg, _, err := parse(t, src)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			kind := ErrLimit
			if strings.Contains(tc.want, "invalid host") {
				kind = ErrInvalid
			}
			wantErrors(t, cfg, err, []string{tc.want}, kind)
		})
	}
}

func TestDiscoveredRouteOverASizeCapIsRejectedNamingItsKey(t *testing.T) {
	l := &Default().Lite
	many := make([]string, 50_000)
	for i := range many {
		many[i] = fmt.Sprintf("h%d.example.com", i)
	}
	cases := []struct {
		name string
		in   Discovered
		want string
	}{
		{"50,000 hosts", Discovered{Hosts: many},
			"kubernetes games/big: host: 50000 host patterns (limit 256)"},
		{"a 256 KiB host", Discovered{Hosts: []string{strings.Repeat("a", 256<<10)}},
			"kubernetes games/big: host: invalid host pattern \"" + strings.Repeat("a", 64) + "...\": longer than 255 bytes; no client sends a host that long"},
		{"too many backends", Discovered{Hosts: []string{"a.test"}, Backends: make([]string, MaxBackendsPerRoute+1)},
			"kubernetes games/big: backend: 1025 backends (limit 1024)"},
		{"a 256 KiB setting", Discovered{Hosts: []string{"a.test"}, Settings: map[string]string{"fallback": "{motd: " + strings.Repeat("a", 256<<10) + "}"}},
			"kubernetes games/big: gate.minekube.com/fallback: value of 262152 bytes (limit 64 KiB)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Origin, tc.in.KeyPrefix = "kubernetes games/big", "gate.minekube.com/"
			r, _, err := l.DecodeDiscovered(tc.in)
			if err == nil || err.Error() != tc.want || !errors.Is(err, ErrLimit) || r.Host != nil {
				t.Fatalf("DecodeDiscovered = %v, %v; want %q", r.Host, err, tc.want)
			}
			if err := tc.in.CheckSizes(); err == nil || err.Error() != tc.want {
				t.Fatalf("CheckSizes = %v", err)
			}
		})
	}
}

// The setting cap must leave room for the largest value a route really
// carries: a fallback with a favicon and a MOTD at their own limits.
func TestSettingCapFitsAFullFallback(t *testing.T) {
	fallback := fmt.Sprintf(`{motd: "%s", favicon: "%s"}`, strings.Repeat("m", maxTextJSON-16), strings.Repeat("f", maxFaviconURI))
	in := Discovered{Origin: "docker lobby", Hosts: []string{"a.test"}, Settings: map[string]string{"fallback": fallback}}
	if err := in.CheckSizes(); err != nil {
		t.Fatal(err)
	}
}

func TestRouteKeyIsBoundedAndTellsHostListsApart(t *testing.T) {
	hosts := func(n, width int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%0*d.example.com", width, i)
		}
		return out
	}
	cases := []struct {
		name  string
		hosts []string
		want  string // "" checks the bound only
	}{
		{"one host", []string{"play.example.com"}, "play.example.com"},
		{"a short list", []string{"play.example.com", "mc.example.com"}, "play.example.com,mc.example.com"},
		{"many hosts", hosts(MaxHostsPerRoute, 3), "000.example.com,001.example.com,002.example.com,003.example.com,004.example.com,005.example.com +250 more #"},
		{"one long host", []string{strings.Repeat("a", maxHostPattern)}, strings.Repeat("a", maxRouteKey-len(" #0123456789abcdef")-3) + "... #"},
		{"a long first host", append([]string{strings.Repeat("é", 120)}, "b.test"), ""},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		key := RouteKey(tc.hosts)
		if len(key) > maxRouteKey || seen[key] {
			t.Fatalf("%s: key %q: %d bytes (limit %d), seen before %v", tc.name, key, len(key), maxRouteKey, seen[key])
		}
		seen[key] = true
		if !strings.HasPrefix(key, tc.want) {
			t.Fatalf("%s: key %q, want it to start %q", tc.name, key, tc.want)
		}
	}
	// Lists that share what is shown still get different keys.
	a, b := hosts(MaxHostsPerRoute, 3), hosts(MaxHostsPerRoute, 3)
	b[MaxHostsPerRoute-1] = "other.example.com"
	if RouteKey(a) == RouteKey(b) || RouteKey(a) != RouteKey(hosts(MaxHostsPerRoute, 3)) {
		t.Fatalf("keys %q and %q: want different for different lists, the same for one list", RouteKey(a), RouteKey(b))
	}
}
