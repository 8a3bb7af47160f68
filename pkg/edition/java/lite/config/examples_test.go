package config

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// repoRoot is where the example files live, relative to this package.
const repoRoot = "../../../../../"

// The example files at the repo root must load cleanly: they are what users
// copy, and what the README runs.
func TestExampleFilesLoad(t *testing.T) {
	for _, name := range []string{"config.yml", "config-lite.yml"} {
		t.Run(name, func(t *testing.T) {
			cfg, warns, err := Load(repoRoot + name)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(warns) != 0 {
				t.Fatalf("warnings: %q", warningStrings(warns))
			}
			if _, err := route.Compile(cfg.Lite.Specs()); err != nil {
				t.Fatalf("route.Compile: %v", err)
			}
		})
	}
}

func TestExampleLiteConfig(t *testing.T) {
	cfg, _, err := Load(repoRoot + "config-lite.yml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Bind != "localhost:25565" || len(cfg.Lite.Routes) != 3 {
		t.Fatalf("bind %q with %d routes", cfg.Bind, len(cfg.Lite.Routes))
	}
	table, err := route.Compile(cfg.Lite.Specs())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host     string
		route    int
		backends []string
	}{
		{"localhost", 0, []string{"127.0.0.1:25566"}},
		{"play.example.com", 1, []string{"127.0.0.1:25567", "127.0.0.1:25568", "127.0.0.1:25569"}},
		{"127.0.0.1", 1, []string{"127.0.0.1:25567", "127.0.0.1:25568", "127.0.0.1:25569"}},
		{"127.0.0.7", 2, []string{"127.0.0.7:25566"}},
	}
	for _, tc := range tests {
		m, ok := table.Match(tc.host)
		if !ok || m.Route != tc.route || !slices.Equal(m.Backends, tc.backends) {
			t.Fatalf("Match(%q) = %+v, %v; want route %d backends %q", tc.host, m, ok, tc.route, tc.backends)
		}
	}
	if cfg.Lite.Routes[1].Strategy != strategy.RoundRobin || cfg.Lite.Routes[0].Fallback == nil {
		t.Fatalf("routes = %+v", cfg.Lite.Routes)
	}
}

// The reference file states every default; loading it must give the same
// values as leaving the keys out.
func TestExampleReferenceMatchesDefaults(t *testing.T) {
	cfg, _, err := Load(repoRoot + "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if cfg.Bind != def.Bind || cfg.ConnectionTimeout != def.ConnectionTimeout || cfg.ReadTimeout != def.ReadTimeout ||
		cfg.Debug || cfg.ProxyProtocol || !slices.Equal(cfg.ProxyProtocolTrustedProxies, def.ProxyProtocolTrustedProxies) ||
		!reflect.DeepEqual(cfg.Quota, def.Quota) || cfg.Lite.HealthCheck != def.Lite.HealthCheck ||
		cfg.Lite.ShutdownGrace != def.Lite.ShutdownGrace || cfg.API != def.API ||
		!reflect.DeepEqual(cfg.Lite.Discovery.Claims, def.Lite.Discovery.Claims) {
		t.Fatalf("reference differs from defaults:\n got %+v\nwant %+v", cfg, def)
	}
	first := cfg.Lite.Routes[0]
	if first.Strategy != strategy.Sequential || first.CachePingTTL != 10*time.Second || first.ProxyProtocol ||
		first.TCPShieldRealIP || first.ModifyVirtualHost || first.HealthCheck != def.Lite.HealthCheck {
		t.Fatalf("first route differs from route defaults: %+v", first)
	}
}
