package config

import "testing"

// apiWith is minimal with an api section of the given keys.
func apiWith(keys string) string { return minimal + "api:\n" + keys }

// api.probeBind: a listener of its own for the probes, any address, no token needed.
func TestAPIProbeBind(t *testing.T) {
	tests := []struct {
		name, keys string
		want       string
	}{
		{"absent: probes on api.bind", "  enabled: true\n", ""},
		{"empty as shipped", "  enabled: true\n  probeBind: ''\n", ""},
		{"all interfaces, no token", "  enabled: true\n  probeBind: 0.0.0.0:8081\n", "0.0.0.0:8081"},
		{"two free ports", "  enabled: true\n  bind: 127.0.0.1:0\n  probeBind: 127.0.0.1:0\n", "127.0.0.1:0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := wantWarnings(t, apiWith(tt.keys), nil)
			if cfg.API.ProbeBind != tt.want || cfg.API.Bind == "" {
				t.Fatalf("api = %+v, want probeBind %q", cfg.API, tt.want)
			}
		})
	}
}

func TestAPIProbeBindRefused(t *testing.T) {
	tests := []struct {
		name, keys string
		want       string
	}{
		{"the API's own address", "  enabled: true\n  bind: 127.0.0.1:8080\n  probeBind: 127.0.0.1:8080\n",
			`config.yml:10: api.probeBind: the same address as api.bind; leave it empty to answer the probes there`},
		{"no port", "  enabled: true\n  probeBind: 0.0.0.0\n",
			`config.yml:9: api.probeBind: invalid address "0.0.0.0": want host:port`},
		{"null", "  enabled: true\n  probeBind: ~\n",
			`config.yml:9: api.probeBind: want host:port, got nothing (null)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := parse(t, apiWith(tt.keys))
			wantErrors(t, cfg, err, []string{tt.want}, ErrInvalid)
		})
	}
}

// A probe listener without the API is none: said, not silently ignored.
func TestAPIProbeBindWithoutTheAPIWarns(t *testing.T) {
	wantWarnings(t, apiWith("  probeBind: 0.0.0.0:8081\n"),
		[]string{`config.yml:8: api.probeBind: no probe listener while api.enabled is false`})
}

func TestAPIProbeBindFromTheEnvironment(t *testing.T) {
	env := []string{"GATE_API_ENABLED=true", "GATE_API_PROBEBIND=0.0.0.0:8081"}
	cfg, warns, err := ParseEnv([]byte(minimal), "config.yml", env)
	if err != nil || len(warns) != 0 || cfg.API.ProbeBind != "0.0.0.0:8081" {
		t.Fatalf("ParseEnv: %v, warnings %q, api %+v", err, warningStrings(warns), cfg.API)
	}
}
