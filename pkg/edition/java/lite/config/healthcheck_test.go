package config

import (
	"strings"
	"testing"
	"time"
)

// TestHealthCheckTimeoutFollowsInterval: an unset timeout is derived from the
// interval of the level it resolves at, so `interval: 1s` alone loads; a
// timeout written anywhere above stays as written.
func TestHealthCheckTimeoutFollowsInterval(t *testing.T) {
	head := "config:\n  lite:\n    enabled: true\n"
	route := "    routes:\n      - host: play.example.com\n        backend: 127.0.0.1:25566\n"
	tests := []struct {
		name                  string
		global, local         string // healthCheck bodies, indented by the test
		wantGlobal, wantLocal time.Duration
	}{
		{"interval alone globally", "interval: 1s", "", 500 * time.Millisecond, 500 * time.Millisecond},
		{"interval alone on the route", "", "interval: 1s", 3 * time.Second, 500 * time.Millisecond},
		{"route interval over a short global one", "interval: 1s", "interval: 20s", 500 * time.Millisecond, 3 * time.Second},
		{"global timeout is kept", "interval: 10s\n      timeout: 400ms", "interval: 1s", 400 * time.Millisecond, 400 * time.Millisecond},
		{"interval of 6s or more keeps the 3s default", "interval: 6s", "", 3 * time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head
			if tt.global != "" {
				src += "    healthCheck:\n      " + tt.global + "\n"
			}
			src += route
			if tt.local != "" {
				src += "        healthCheck:\n          " + strings.ReplaceAll(tt.local, "\n      ", "\n          ") + "\n"
			}
			cfg := mustParse(t, src)
			if got := cfg.Lite.HealthCheck.Timeout; got != tt.wantGlobal {
				t.Errorf("global timeout = %s, want %s", got, tt.wantGlobal)
			}
			if got := cfg.Lite.Routes[0].HealthCheck.Timeout; got != tt.wantLocal {
				t.Errorf("route timeout = %s, want %s", got, tt.wantLocal)
			}
		})
	}
}

// TestHealthCheckWrittenTimeoutStillChecked: a timeout written above that
// does not fit a route's interval is refused at the route, as before.
func TestHealthCheckWrittenTimeoutStillChecked(t *testing.T) {
	src := "config:\n  lite:\n    enabled: true\n    healthCheck:\n      timeout: 2s\n" +
		"    routes:\n      - host: play.example.com\n        backend: 127.0.0.1:25566\n" +
		"        healthCheck:\n          interval: 1s\n"
	_, _, err := parse(t, src)
	want := "config.yml:9: config.lite.routes[0].healthCheck.timeout: timeout 2s must be less than interval 1s"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
