package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeStartErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		args []string
		code int
		want string
	}{
		{
			name: "open API bind without a token",
			yaml: "config:\n  bind: 127.0.0.1:0\n  lite:\n    enabled: true\n    routes:\n      - host: a\n        backend: 127.0.0.1:1\napi:\n  enabled: true\n  bind: 0.0.0.0:0\n",
			code: 1,
			want: "api.bind: the API would listen on 0.0.0.0:0 without a token",
		},
		{
			name: "invalid config",
			yaml: "config:\n  lite:\n    enabled: true\n    routes:\n      - host: a\n        backend: 127.0.0.1:1\n        strategy: nope\n",
			code: 1,
			want: "config.yml:7: config.lite.routes[0].strategy",
		},
		{
			name: "unknown command",
			yaml: gateYAML("a", "127.0.0.1:1"),
			args: []string{"statsu"},
			code: 2,
			want: `gate: unknown command "statsu"`,
		},
		{
			name: "unknown log format",
			yaml: gateYAML("a", "127.0.0.1:1"),
			args: []string{"--log-format", "xml"},
			code: 2,
			want: `unknown "xml"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yml")
			writeFile(t, path, tt.yaml)
			var out syncBuffer
			code := serve(context.Background(), append([]string{"--config", path}, tt.args...), &out, func(*app) {
				t.Error("gate started")
			})
			if code != tt.code || !strings.Contains(out.String(), tt.want) {
				t.Fatalf("exit %d, output:\n%s\nwant exit %d containing %q", code, out.String(), tt.code, tt.want)
			}
		})
	}
}

func TestHealthcheck(t *testing.T) {
	b := newFakeServer(t, 1, 20)
	g := startGate(t, gateYAML("a.example.com", b.addr), "s3cret")
	noAPI := filepath.Join(t.TempDir(), "noapi.yml")
	writeFile(t, noAPI, "config:\n  bind: "+g.proxy+"\n  lite:\n    enabled: true\n    routes:\n      - host: a.example.com\n        backend: "+b.addr+"\n")
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"healthz by URL", []string{"--url", g.api + "/healthz"}, 0},
		{"readyz by URL", []string{"--url", g.api + "/readyz"}, 0},
		{"API address from the config", []string{"--config", g.path}, 1}, // port 0 in the file: nothing listens there
		{"player port when the API is off", []string{"--config", noAPI}, 0},
		{"nothing listening", []string{"--url", "http://" + closedAddr(t) + "/healthz"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(append([]string{"healthcheck", "--timeout", "2s"}, tt.args...), &out, &errOut); code != tt.code {
				t.Fatalf("exit %d (%s%s), want %d", code, out.String(), errOut.String(), tt.code)
			}
		})
	}
}
