package config_test

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/wake"
)

func wakeRoutes(t *testing.T, extra string) *config.Config {
	t.Helper()
	cfg, _, err := config.Parse([]byte(`config:
  lite:
    enabled: true
`+extra), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestWakeKeysDefault(t *testing.T) {
	cfg := wakeRoutes(t, `    routes:
      - host: a
        backend: 127.0.0.1:1
        wake: {webhook: "http://127.0.0.1:9/wake"}
      - host: b
        backend: 127.0.0.1:2
`)
	r := cfg.Lite.Routes[0]
	if r.Wake == nil || r.Wake.Kind != wake.KindWebhook || r.Wake.URL != "http://127.0.0.1:9/wake" {
		t.Fatalf("wake = %+v", r.Wake)
	}
	w := r.WakeSettings
	if w.HoldFor != 25*time.Second || w.IdleAfter != 10*time.Minute || !strings.Contains(string(w.AsleepMOTD), config.DefaultAsleepMOTD) {
		t.Fatalf("settings = %+v (%s)", w, w.AsleepMOTD)
	}
	if !strings.Contains(string(w.LoadingMOTD), config.DefaultLoadingMOTD) {
		t.Fatalf("loadingMotd = %s", w.LoadingMOTD)
	}
	if cfg.Lite.Routes[1].Wake != nil {
		t.Fatalf("route without wake has %+v", cfg.Lite.Routes[1].Wake)
	}
}

func TestWakeKeysRouteOverridesGlobal(t *testing.T) {
	cfg := wakeRoutes(t, `    wake: {holdFor: 20s, idleAfter: 5m, asleepMotd: "zzz", loadingMotd: "..."}
    routes:
      - host: a
        backend: 127.0.0.1:1
        wake: {exec: [/bin/start, mc], sleep: [/bin/stop, mc], timeout: 40s}
        idleAfter: never
      - host: b
        backend: 127.0.0.1:2
        wake: {docker: mc-b}
        holdFor: 10s
        loadingMotd: {text: "b wakes", color: gold}
`)
	a, b := cfg.Lite.Routes[0], cfg.Lite.Routes[1]
	if a.Wake.Kind != wake.KindExec || strings.Join(a.Wake.Command, " ") != "/bin/start mc" ||
		strings.Join(a.Wake.SleepCommand, " ") != "/bin/stop mc" || a.Wake.Timeout != 40*time.Second {
		t.Fatalf("exec = %+v", a.Wake)
	}
	if a.WakeSettings.IdleAfter != 0 || a.WakeSettings.HoldFor != 20*time.Second || string(a.WakeSettings.AsleepMOTD) != `{"text":"zzz"}` {
		t.Fatalf("a settings = %+v", a.WakeSettings)
	}
	if b.Wake.Kind != wake.KindDocker || b.Wake.Name != "mc-b" || b.WakeSettings.HoldFor != 10*time.Second || b.WakeSettings.IdleAfter != 5*time.Minute {
		t.Fatalf("b = %+v %+v", b.Wake, b.WakeSettings)
	}
	if string(a.WakeSettings.LoadingMOTD) != `{"text":"..."}` || !strings.Contains(string(b.WakeSettings.LoadingMOTD), `"b wakes"`) {
		t.Fatalf("loadingMotd a = %s, b = %s", a.WakeSettings.LoadingMOTD, b.WakeSettings.LoadingMOTD)
	}
}

func TestWakeKeysBadValuesNameFileLineAndKey(t *testing.T) {
	_, _, err := config.Parse([]byte(`config:
  lite:
    enabled: true
    wake: {holdFor: 45s}
    routes:
      - host: a
        backend: 127.0.0.1:1
        wake: {webhook: "ftp://x", docker: y}
        holdFor: 30s
        idleAfter: -1s
        asleepMotd: "{not json"
        loadingMotd: "{not json either"
      - host: b
        backend: 127.0.0.1:2
        wake: {webhook: "http://127.0.0.1:9/", sleep: [x]}
      - host: c
        backend: 127.0.0.1:2
        wake: {exec: "start.sh"}
`), "config.yml")
	if err == nil {
		t.Fatal("accepted")
	}
	want := []string{
		`config.yml:4: config.lite.wake.holdFor: 45s is not less than 30s, the client's own read timeout`,
		`config.yml:8: config.lite.routes[0].wake: want exactly one of kubernetes, docker, webhook, exec, got 2`,
		`config.yml:9: config.lite.routes[0].holdFor: 30s is not less than 30s`,
		`config.yml:10: config.lite.routes[0].idleAfter: must not be negative`,
		`config.yml:11: config.lite.routes[0].asleepMotd: invalid JSON text component`,
		`config.yml:12: config.lite.routes[0].loadingMotd: invalid JSON text component`,
		`config.yml:15: config.lite.routes[1].wake.sleep: only valid with exec`,
		`config.yml:18: config.lite.routes[2].wake.exec: want a command as a list of arguments`,
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
}

func TestWakeSettingsWithoutWakeWarn(t *testing.T) {
	_, warns, err := config.Parse([]byte(`config:
  lite:
    enabled: true
    routes:
      - host: a
        backend: 127.0.0.1:1
        idleAfter: 1m
`), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].String(), "config.yml:7: config.lite.routes[0].idleAfter: has no effect: the route has no wake target") {
		t.Fatalf("warnings = %v", warns)
	}
}

func TestDiscoveredWakeDefaultsToTheObjectsScope(t *testing.T) {
	l := discoveryLite(t)
	r, _, err := l.DecodeDiscovered(config.Discovered{Origin: "kubernetes games/mc", KeyPrefix: "gate.minekube.com/",
		Hosts: []string{"mc.example.com"}, Namespace: "games",
		Settings: map[string]string{"wake": "deployment/mc", "idleAfter": "2m", "holdFor": "15s", "loadingMotd": "mc starts"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Wake == nil || r.Wake.Kind != wake.KindKubernetes || r.Wake.Namespace != "games" || r.Wake.Name != "mc" {
		t.Fatalf("wake = %+v", r.Wake)
	}
	if r.WakeSettings.IdleAfter != 2*time.Minute || r.WakeSettings.HoldFor != 15*time.Second ||
		string(r.WakeSettings.LoadingMOTD) != `{"text":"mc starts"}` {
		t.Fatalf("settings = %+v", r.WakeSettings)
	}
	_, _, err = l.DecodeDiscovered(config.Discovered{Origin: "kubernetes games/mc", KeyPrefix: "gate.minekube.com/",
		Hosts: []string{"mc.example.com"}, Namespace: "games", Settings: map[string]string{"holdFor": "1m"}})
	if err == nil || !strings.Contains(err.Error(), "gate.minekube.com/holdFor: 1m0s is not less than 30s") {
		t.Fatalf("err = %v", err)
	}
}

// The mapping form ends in the same validation as the text form: a name the
// text form refuses is refused written as a mapping, at the engine's key.
func TestWakeMappingIsValidatedLikeTheText(t *testing.T) {
	for _, tt := range []struct{ wake, want string }{
		{`{docker: "bad name"}`, `config.yml:7: config.lite.routes[0].wake.docker: wake: container name "bad name" is not a Docker container name`},
		{`"container/bad name"`, `config.yml:7: config.lite.routes[0].wake: wake: container name "bad name" is not a Docker container name`},
		{`{kubernetes: deployment/Bad_Name}`, `config.yml:7: config.lite.routes[0].wake.kubernetes: wake: deployment name "Bad_Name" is not a Kubernetes object name`},
		{`{kubernetes: deployment/mc, namespace: "Bad.NS"}`, `config.yml:7: config.lite.routes[0].wake.kubernetes: wake: namespace "Bad.NS" is not a Kubernetes namespace name`},
		{`{webhook: "ftp://x"}`, `config.yml:7: config.lite.routes[0].wake.webhook: webhook URL "ftp://x" needs http:// or https:// and a host`},
	} {
		_, _, err := config.Parse([]byte(`config:
  lite:
    enabled: true
    routes:
      - host: a
        backend: 127.0.0.1:1
        wake: `+tt.wake+`
`), "config.yml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("wake: %s: %v\nwant %q", tt.wake, err, tt.want)
		}
	}
}
