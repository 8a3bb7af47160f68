package config

import (
	"encoding/base64"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	cfg, warns, err := parse(t, src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(warns) != 0 {
		t.Fatalf("unexpected warnings: %q", warningStrings(warns))
	}
	return cfg
}

func TestDefaults(t *testing.T) {
	cfg := mustParse(t, minimal)
	want := Default()
	want.File = "config.yml"
	want.Lite.Enabled = true
	want.Lite.Routes = []Route{{
		Host:         []string{"play.example.com"},
		Backend:      []string{"127.0.0.1:25566"},
		Strategy:     strategy.Sequential,
		CachePingTTL: 10 * time.Second,
		HealthCheck:  HealthCheck{Interval: 10 * time.Second, Timeout: 3 * time.Second, Rise: 2, Fall: 3},
		P2C:          P2CConfig{LatencyWeight: 250 * time.Millisecond, StaleAfter: 30 * time.Second, Saturation: 0.9},
		Status:       StatusBackend,
		WakeSettings: defaultWake(),
		Line:         5,
		Origin:       "config.yml:5",
	}}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("config:\n got %+v\nwant %+v", cfg, want)
	}
	if cfg.Bind != "0.0.0.0:25565" || cfg.ConnectionTimeout != 5*time.Second || cfg.ReadTimeout != 30*time.Second ||
		cfg.Lite.ShutdownGrace != 10*time.Second || cfg.API.Bind != "localhost:8080" {
		t.Fatalf("defaults not applied: %+v", cfg)
	}
	if cfg.Quota.Connections != (QuotaSettings{Enabled: true, Rate: 5, Burst: 10, MaxEntries: 1000}) ||
		cfg.Quota.Logins != (QuotaSettings{Enabled: true, Rate: 0.4, Burst: 3, MaxEntries: 1000}) ||
		cfg.Quota.Status != (QuotaSettings{Enabled: true, Rate: 5, Burst: 10, MaxEntries: 1000}) {
		t.Fatalf("quota defaults: %+v", cfg.Quota)
	}
	if !slices.Equal(cfg.ProxyProtocolTrustedProxies, DefaultTrustedProxies()) {
		t.Fatalf("trusted proxies = %v", cfg.ProxyProtocolTrustedProxies)
	}
}

func TestDurations(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want time.Duration
	}{
		{"duration string", "90s", 90 * time.Second},
		{"compound duration string", "1m30s", 90 * time.Second},
		{"bare number is milliseconds", "2500", 2500 * time.Millisecond},
		{"Gate's old millisecond default", "5000", 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustParse(t, "config:\n  connectionTimeout: "+tc.yaml+"\n"+minimal[len("config:\n"):])
			if cfg.ConnectionTimeout != tc.want {
				t.Fatalf("ConnectionTimeout = %s, want %s", cfg.ConnectionTimeout, tc.want)
			}
		})
	}
}

func TestCachePingTTL(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want time.Duration
	}{
		{"negative disables", "-1", -1},
		{"negative duration disables", "-1s", -1},
		{"zero is the default", "0", 10 * time.Second},
		{"explicit value", "1m", time.Minute},
		{"bare number milliseconds", "1500", 1500 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustParse(t, minimal+"        cachePingTTL: "+tc.yaml+"\n")
			if got := cfg.Lite.Routes[0].CachePingTTL; got != tc.want {
				t.Fatalf("CachePingTTL = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRouteFields(t *testing.T) {
	cfg, warns, err := parse(t, `config:
  lite:
    enabled: true
    healthCheck:
      enabled: true
      interval: 20s
    disconnect:
      unknownHost: '§cNo such server'
      unavailable: '{"text":"down","color":"red"}'
    routes:
      - host: [A.example.com, b.example.com]
        backend: [10.0.0.1, '[::1]:25570']
        strategy: least-connections
        proxyProtocol: true
        realIP: true
        modifyVirtualHost: true
        healthCheck:
          rise: 5
      - host: c.example.com
        backend: c:1
        disconnect:
          unavailable:
            text: c is down
            bold: true
            extra: [{text: ' <soon>'}]
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 {
		t.Fatalf("warnings = %q, want only the realIP deprecation", warningStrings(warns))
	}
	r0, r1 := cfg.Lite.Routes[0], cfg.Lite.Routes[1]
	if !slices.Equal(r0.Host, []string{"A.example.com", "b.example.com"}) ||
		!slices.Equal(r0.Backend, []string{"10.0.0.1", "[::1]:25570"}) ||
		r0.Strategy != strategy.LeastConnections || !r0.ProxyProtocol || !r0.TCPShieldRealIP || !r0.ModifyVirtualHost ||
		r0.Line != 11 || r1.Line != 19 {
		t.Fatalf("route 0 = %+v", r0)
	}
	wantHC := HealthCheck{Enabled: true, Interval: 20 * time.Second, Timeout: 3 * time.Second, Rise: 5, Fall: 3}
	if r0.HealthCheck != wantHC {
		t.Fatalf("route 0 health = %+v, want %+v", r0.HealthCheck, wantHC)
	}
	if r1.HealthCheck != (HealthCheck{Enabled: true, Interval: 20 * time.Second, Timeout: 3 * time.Second, Rise: 2, Fall: 3}) {
		t.Fatalf("route 1 health = %+v, want the global one", r1.HealthCheck)
	}
	checkJSON(t, "global unknownHost", cfg.Lite.Disconnect.UnknownHost, `{"text":"§cNo such server"}`)
	checkJSON(t, "global unavailable", cfg.Lite.Disconnect.Unavailable, `{"text":"down","color":"red"}`)
	checkJSON(t, "route 0 inherits unavailable", r0.Disconnect.Unavailable, `{"text":"down","color":"red"}`)
	checkJSON(t, "route 1 unavailable", r1.Disconnect.Unavailable,
		`{"text":"c is down","bold":true,"extra":[{"text":" <soon>"}]}`)
	if r0.Disconnect.UnknownHost != nil {
		t.Fatal("route disconnect carries unknownHost")
	}
}

func checkJSON(t *testing.T, name string, got []byte, want string) {
	t.Helper()
	if string(got) != want {
		t.Fatalf("%s = %s, want %s", name, got, want)
	}
}

func TestFallback(t *testing.T) {
	cfg := mustParse(t, minimal+`        fallback:
          motd: |
            §cOffline
            §eLater
          version:
            name: Maintenance
            protocol: -1
          players:
            online: 3
            max: 100
`)
	fb := cfg.Lite.Routes[0].Fallback
	if fb == nil {
		t.Fatal("no fallback")
	}
	checkJSON(t, "motd", fb.MOTD, `{"text":"§cOffline\n§eLater"}`)
	if fb.VersionName != "Maintenance" || fb.VersionProtocol == nil || *fb.VersionProtocol != -1 ||
		fb.Online != 3 || fb.Max != 100 || fb.Favicon != "" {
		t.Fatalf("fallback = %+v", fb)
	}
	noProto := mustParse(t, minimal+"        fallback:\n          version:\n            name: x\n")
	if noProto.Lite.Routes[0].Fallback.VersionProtocol != nil {
		t.Fatal("protocol set without configuring it")
	}
	if mustParse(t, minimal).Lite.Routes[0].Fallback != nil {
		t.Fatal("fallback set without configuring it")
	}
}

// A favicon path is resolved against the config file's directory and
// embedded at load.
func TestFaviconFileRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	png := pngOf(t, 64, 64)
	if err := os.WriteFile(filepath.Join(dir, "icon.png"), png, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.yml")
	src := minimal + "        fallback:\n          favicon: icon.png\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, warns, err := Load(path)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Load: %v %q", err, warningStrings(warns))
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	if got := cfg.Lite.Routes[0].Fallback.Favicon; got != want {
		t.Fatalf("favicon = %q, want %q", got, want)
	}
	if cfg.File != path {
		t.Fatalf("File = %q, want %q", cfg.File, path)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, _, err := Load(filepath.Join(t.TempDir(), "nope.yml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want a wrapped os.ErrNotExist", err)
	}
}

func TestProxyAndAPI(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := `config:
  bind: 127.0.0.1:0
  debug: true
  proxyProtocol: true
  proxyProtocolTrustedProxies: [10.1.2.3, 192.168.0.0/16, '2001:db8::/32']
  quota:
    status:
      enabled: true
      ops: 2
` + minimal[len("config:\n"):] + `api:
  enabled: true
  config:
    bind: 127.0.0.1:9000
  tokenFile: token
`
	cfg, warns, err := Parse([]byte(src), filepath.Join(dir, "config.yml"))
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %q", err, warningStrings(warns))
	}
	wantTrusted := []netip.Prefix{
		netip.MustParsePrefix("10.1.2.3/32"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("2001:db8::/32"),
	}
	if cfg.Bind != "127.0.0.1:0" || !cfg.Debug || !cfg.ProxyProtocol ||
		!slices.Equal(cfg.ProxyProtocolTrustedProxies, wantTrusted) {
		t.Fatalf("proxy settings = %+v", cfg)
	}
	if cfg.Quota.Status != (QuotaSettings{Enabled: true, Rate: 2, Burst: 10, MaxEntries: 1000}) {
		t.Fatalf("status quota = %+v", cfg.Quota.Status)
	}
	if cfg.API != (API{Enabled: true, Bind: "127.0.0.1:9000", TokenFile: filepath.Join(dir, "token")}) {
		t.Fatalf("api = %+v", cfg.API)
	}
}

// YAML anchors, aliases and merge keys are common in hand-written configs
// with many similar routes: explicit keys win over merged ones.
func TestMergeKeys(t *testing.T) {
	cfg := mustParse(t, `config:
  lite:
    enabled: true
    routes:
      - &base
        host: a.example.com
        backend: [a1:1, a2:1]
        strategy: round-robin
        cachePingTTL: 30s
        fallback: &fb
          motd: down
      - <<: *base
        host: b.example.com
        strategy: random
      - host: c.example.com
        backend: c:1
        fallback: *fb
`)
	a, b, c := cfg.Lite.Routes[0], cfg.Lite.Routes[1], cfg.Lite.Routes[2]
	if !slices.Equal(b.Host, []string{"b.example.com"}) || !slices.Equal(b.Backend, a.Backend) ||
		b.Strategy != strategy.Random || b.CachePingTTL != 30*time.Second {
		t.Fatalf("merged route = %+v", b)
	}
	checkJSON(t, "aliased fallback", c.Fallback.MOTD, `{"text":"down"}`)
}

// A config written for Gate Lite, with Gate's keys and habits (a duplicate
// host, a deprecated key, Gate's other sections), loads with warnings only.
func TestGateShapedConfig(t *testing.T) {
	cfg, warns, err := parse(t, `config:
  bind: 0.0.0.0:25565
  onlineMode: true
  lite:
    enabled: true
    routes:
      - host: localhost
        backend: [localhost:25566]
        strategy: random
      - host: '*.example.com'
        backend: 172.16.0.12:25566
        realIP: true
      - host: [127.0.0.1, localhost]
        backend: [172.16.0.12:25566, backend.example.com:25566]
        cachePingTTL: 60s
        modifyVirtualHost: true
      - host: '*'
        backend: 10.0.0.10:25565
  connectionTimeout: 5000
connect:
  enabled: false
api:
  enabled: false
  bind: localhost:8080
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`config.yml:3: config.onlineMode: ignored: Gate full-proxy setting, no effect in Lite mode`,
		`config.yml:12: config.lite.routes[1].realIP: deprecated: use tcpShieldRealIP`,
		`config.yml:13: config.lite.routes[2].host[1]: duplicate host "localhost": route 0 host 0 has it already`,
		`config.yml:14: config.lite.routes[2].backend[0]: backend "172.16.0.12:25566" is also reached by route 1 (line 10) with tcpShieldRealIP, and this route has none: a player connecting here can forge the RealIP block that backend trusts (give both routes tcpShieldRealIP, or use separate backends)`,
		`config.yml:20: connect: ignored: Gate section not supported by this Lite-only proxy`,
	}
	if got := warningStrings(warns); !slices.Equal(got, want) {
		t.Fatalf("warnings:\n got %q\nwant %q", got, want)
	}
	if len(cfg.Lite.Routes) != 4 || !cfg.Lite.Routes[1].TCPShieldRealIP || cfg.ConnectionTimeout != 5*time.Second {
		t.Fatalf("config = %+v", cfg)
	}
}
