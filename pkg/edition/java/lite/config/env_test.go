package config

import (
	"strings"
	"testing"
	"time"
)

func TestEnvOverridesKeys(t *testing.T) {
	env := []string{
		"GATE_CONFIG_BIND=127.0.0.1:25570",
		"GATE_CONFIG_CONNECTIONTIMEOUT=2s",
		"GATE_CONFIG_DEBUG=true",
		"GATE_CONFIG_LITE_SHUTDOWNGRACE=3000",
		"GATE_API_ENABLED=true", // api: is absent from the file
		"GATE_API_BIND=127.0.0.1:8099",
		"GATE_CONFIG=other.yml", // the file flag, not a key
		"GATE_DEBUG=1",
		"GATE_API_TOKEN=for-gate-lite-status", // the status command's, not api.token
		"HOME=/root",
	}
	cfg, warns, err := ParseEnv([]byte(minimal), "config.yml", env)
	if err != nil || len(warns) != 0 {
		t.Fatalf("ParseEnv: %v, warnings %q", err, warningStrings(warns))
	}
	if cfg.Bind != "127.0.0.1:25570" || cfg.ConnectionTimeout != 2*time.Second || !cfg.Debug ||
		cfg.Lite.ShutdownGrace != 3*time.Second || !cfg.API.Enabled || cfg.API.Bind != "127.0.0.1:8099" {
		t.Fatalf("overrides not applied: %+v", cfg)
	}
	if cfg.API.Token != "" {
		t.Fatalf("GATE_API_TOKEN set api.token %q", cfg.API.Token)
	}
	if cfg.Lite.Routes[0].Backend[0] != "127.0.0.1:25566" {
		t.Fatalf("file keys lost: %v", cfg.Lite.Routes[0].Backend)
	}
}

func TestEnvOnlyNoFile(t *testing.T) {
	cfg, _, err := ParseEnv(nil, "", []string{
		"GATE_CONFIG_LITE_ENABLED=true",
		"GATE_CONFIG_LITE_ROUTES=[{host: play.example.com, backend: '10.0.0.1:25565'}]",
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Lite.Routes; len(r) != 1 || r[0].Host[0] != "play.example.com" || r[0].Backend[0] != "10.0.0.1:25565" {
		t.Fatalf("routes %+v", r)
	}
}

func TestEnvErrorsNameTheVariable(t *testing.T) {
	tests := []struct{ name, env, want string }{
		{"bad value", "GATE_CONFIG_BIND=nope",
			`environment variable GATE_CONFIG_BIND: config.bind: invalid address "nope": want host:port`},
		{"wrong type", "GATE_CONFIG_DEBUG=yes please",
			`environment variable GATE_CONFIG_DEBUG: config.debug: want true or false`},
		{"bad flow value", "GATE_CONFIG_LITE_ROUTES=[{host: a",
			`environment variable GATE_CONFIG_LITE_ROUTES: config.lite.routes: invalid YAML flow value`},
		{"bad item in a flow list", "GATE_CONFIG_LITE_ROUTES=[{host: a, backend: 'x:0'}]",
			`environment variable GATE_CONFIG_LITE_ROUTES: config.lite.routes[0].backend: invalid backend "x:0"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseEnv([]byte(minimal), "config.yml", []string{tc.env})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestEnvUnknownVariableWarns(t *testing.T) {
	_, warns, err := ParseEnv([]byte(minimal), "config.yml", []string{"GATE_CONFIG_BND=x", "GATE_CONFIG_BIND_PORT=1"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(warningStrings(warns), "\n")
	for _, name := range []string{"GATE_CONFIG_BND", "GATE_CONFIG_BIND_PORT"} {
		if !strings.Contains(got, "environment variable "+name+": matches no config key") {
			t.Fatalf("warnings %q, want one about %s", got, name)
		}
	}
}
