package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/strategy"
)

func discoveryLite(t *testing.T) *config.Lite {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte(`
config:
  lite:
    enabled: true
    disconnect: {unavailable: "down for now"}
    discovery:
      kubernetes: {enabled: true, namespace: games}
`), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return &cfg.Lite
}

func TestDiscoveryEnabledMakesRoutesOptional(t *testing.T) {
	l := discoveryLite(t)
	if len(l.Routes) != 0 || !l.Discovery.Kubernetes.Enabled || l.Discovery.Kubernetes.Namespace != "games" {
		t.Fatalf("lite = %+v", l)
	}
	if got := strings.Join(l.Discovery.Precedence, ","); got != "file,kubernetes,docker" {
		t.Fatalf("precedence = %s", got)
	}
	_, _, err := config.ParseEnv([]byte("config:\n  lite:\n    enabled: true\n"), "config.yml", nil)
	if err == nil || !strings.Contains(err.Error(), "or enable a discovery source") {
		t.Fatalf("no routes and no discovery: err = %v", err)
	}
}

func TestDiscoveryPrecedenceFillsTheRestInDefaultOrder(t *testing.T) {
	cfg, _, err := config.ParseEnv([]byte(`
config:
  lite:
    enabled: true
    discovery:
      docker: {enabled: true}
      precedence: [docker]
`), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Lite.Discovery.Precedence, ","); got != "docker,file,kubernetes" {
		t.Fatalf("precedence = %s", got)
	}
	_, _, err = config.ParseEnv([]byte(`
config:
  lite:
    enabled: true
    discovery:
      docker: {enabled: true}
      precedence: [consul, docker, docker]
`), "config.yml", nil)
	for _, want := range []string{`config.yml:7: config.lite.discovery.precedence[0]: unknown source "consul"`, `precedence[2]: source "docker" listed twice`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

func TestDecodeDiscoveredParsesSettingsLikeTheFile(t *testing.T) {
	l := discoveryLite(t)
	r, _, err := l.DecodeDiscovered(config.Discovered{
		Origin: "kubernetes games/lobby", KeyPrefix: "gate.minekube.com/",
		Hosts:    []string{"lobby.example.com"},
		Backends: []string{"10.9.0.11:25565", "10.9.0.12:25565"},
		Settings: map[string]string{
			"strategy":      "round-robin",
			"proxyProtocol": "true",
			"cachePingTTL":  "30s",
			"fallback":      `{motd: "asleep", version: {name: "maint"}}`,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Strategy != strategy.RoundRobin || !r.ProxyProtocol || r.CachePingTTL != 30*time.Second ||
		r.Fallback == nil || r.Origin != "kubernetes games/lobby" || len(r.Backend) != 2 {
		t.Fatalf("route = %+v", r)
	}
	if got := string(r.Disconnect.Unavailable); !strings.Contains(got, "down for now") {
		t.Fatalf("the global disconnect text is not inherited: %s", got)
	}
}

func TestDecodeDiscoveredNamesOriginAndKeyOfABadValue(t *testing.T) {
	l := discoveryLite(t)
	_, _, err := l.DecodeDiscovered(config.Discovered{
		Origin: "kubernetes games/lobby", KeyPrefix: "gate.minekube.com/",
		Hosts:    []string{"lobby.example.com"},
		Backends: []string{"10.9.0.11:25565"},
		Settings: map[string]string{"strategy": "round_robin", "backend": "x", "colour": "blue"},
	})
	var list config.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{
		`kubernetes games/lobby: gate.minekube.com/strategy: unknown "round_robin"`,
		`kubernetes games/lobby: backend: set by the source`,
		`kubernetes games/lobby: gate.minekube.com/colour: unknown key`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	}
}

func TestDecodeDiscoveredWithoutBackendsIsARoute(t *testing.T) {
	l := discoveryLite(t)
	r, _, err := l.DecodeDiscovered(config.Discovered{Origin: "docker lobby", KeyPrefix: "gate.", Hosts: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Backend) != 0 || len(r.Host) != 1 {
		t.Fatalf("route = %+v", r)
	}
}

// An annotation's text with ": " in it is a text, not a mapping: only braces
// and brackets make one.
func TestDecodeDiscoveredTakesBlockSyntaxAsText(t *testing.T) {
	l := discoveryLite(t)
	r, _, err := l.DecodeDiscovered(config.Discovered{
		Origin: "kubernetes games/lobby", KeyPrefix: "gate.minekube.com/", Namespace: "games",
		Hosts: []string{"lobby.example.com"},
		Settings: map[string]string{
			"wake":       "deployment/lobby",
			"asleepMotd": "The lobby sleeps: join to wake it",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.WakeSettings.AsleepMOTD); !strings.Contains(got, "The lobby sleeps: join to wake it") {
		t.Fatalf("asleepMotd = %s", got)
	}
	if r.Wake == nil || r.Wake.Namespace != "games" || r.Wake.Name != "lobby" {
		t.Fatalf("wake = %+v", r.Wake)
	}
}
