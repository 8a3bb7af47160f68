package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// foreignHTTP is another program's HTTP API on loopback: it answers every
// path with 200 and a JSON list, as the one found on localhost:8080 did.
func foreignHTTP(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"route":"theirs","backend":"10.9.9.9:25565","state":"up"}]`))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// acceptAndClose is a TCP listener that accepts and hangs up: something that
// is not a Minecraft proxy holds the port.
func acceptAndClose(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

func runCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// gate lite status and gate healthcheck read the API address from the config,
// say what they asked, and fail with one line when the API is off or another
// program answers.
func TestStatusAndHealthcheckFindTheAPI(t *testing.T) {
	dir := t.TempDir()
	foreign := foreignHTTP(t)
	foreignBind := strings.TrimPrefix(foreign, "http://")
	apiOff := filepath.Join(dir, "off.yml")
	writeFile(t, apiOff, "config:\n  bind: "+acceptAndClose(t)+"\n  lite:\n    enabled: true\n    routes:\n      - host: a.example.com\n        backend: 127.0.0.1:1\n")
	apiForeign := filepath.Join(dir, "foreign.yml")
	writeFile(t, apiForeign, "config:\n  lite:\n    enabled: true\n    routes:\n      - host: a\n        backend: 127.0.0.1:1\napi:\n  enabled: true\n  bind: "+foreignBind+"\n")
	probeForeign := filepath.Join(dir, "probe.yml")
	writeFile(t, probeForeign, "config:\n  lite:\n    enabled: true\n    routes:\n      - host: a\n        backend: 127.0.0.1:1\napi:\n  enabled: true\n  bind: 127.0.0.1:1\n  probeBind: "+foreignBind+"\n")

	tests := []struct {
		name string
		args []string
		code int
		err  string // the one line on stderr
	}{
		{"status with the API off", []string{"lite", "status", "-c", apiOff}, 2,
			"gate lite status: the admin API is off in " + apiOff + " (set api.enabled: true, or pass --api URL)\n"},
		{"status from another program on api.bind", []string{"lite", "status", "--config", apiForeign}, 1,
			"gate lite status: " + foreign + " (api.bind in " + apiForeign + "): admin API: the answer is not from gate's admin API: GET " + foreign + "/api/v1/backends answered 200 OK without the X-Gate-Lite-Admin header\n"},
		{"status from another program by --api", []string{"lite", "status", "--api", foreign, "-c", apiOff}, 1,
			"gate lite status: " + foreign + " (--api): admin API: the answer is not from gate's admin API"},
		{"healthcheck from another program on api.bind", []string{"healthcheck", "-c", apiForeign}, 1,
			"unhealthy: " + foreign + "/healthz (api.bind in " + apiForeign + "): admin API: the answer is not from gate's admin API"},
		{"healthcheck asks api.probeBind when set", []string{"healthcheck", "-c", probeForeign}, 1,
			"unhealthy: " + foreign + "/healthz (api.probeBind in " + probeForeign + "): admin API: the answer is not from gate's admin API"},
		{"healthcheck with the API off and a non-Minecraft listener", []string{"-c", apiOff, "healthcheck"}, 1,
			"unhealthy: status ping to "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(tt.args...)
			if code != tt.code || !strings.HasPrefix(errOut, tt.err) || strings.Count(errOut, "\n") != 1 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and one stderr line starting %q", code, out, errOut, tt.code, tt.err)
			}
		})
	}
}

// With the API off, healthcheck does a real server-list ping with the proxy.
func TestHealthcheckStatusPingWithAPIOff(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{})
	g := startGate(t, "config:\n  bind: 127.0.0.1:0\n  lite:\n    enabled: true\n    shutdownGrace: 0s\n    routes:\n      - host: '*.example.com'\n        backend: "+b.Addr()+"\n", "")
	probe := filepath.Join(t.TempDir(), "probe.yml")
	writeFile(t, probe, "config:\n  bind: "+g.proxy+"\n  lite:\n    enabled: true\n    routes:\n      - host: '*.example.com'\n        backend: "+b.Addr()+"\n")
	code, out, errOut := runCmd("healthcheck", "--config", probe)
	if code != 0 || out != "ok: status ping to "+g.proxy+" (config.bind in "+probe+"; the admin API is off)\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b.StatusRequests() == 0 {
		t.Fatal("the ping did not reach the proxy's status path")
	}
}

// .ci/run runs the README's test command exactly, after installing the C
// compiler the README says it needs.
func TestCIRunsTheREADMETestCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	// The command is the line after the quick start's "run the whole test
	// suite" comment.
	var cmd string
	lines := strings.Split(string(readme), "\n")
	for i, l := range lines[:len(lines)-1] {
		if strings.HasPrefix(l, "# run the whole test suite") {
			cmd = lines[i+1]
			break
		}
	}
	if cmd == "" {
		t.Fatal("README has no test command under a '# run the whole test suite' comment")
	}
	if !slices.Contains(strings.Split(string(ci), "\n"), cmd) {
		t.Fatalf(".ci/run does not run the README's %q as a line of its own", cmd)
	}
	if cmd != "scripts/test.sh" || !strings.Contains(string(script), `go test -race -count=1 "$@" ./...`) {
		t.Fatalf("the README's test command %q must be scripts/test.sh running go test -race -count=1 ./...", cmd)
	}
	if !strings.Contains(string(readme), "C compiler") || !strings.Contains(string(script), "need+=(gcc libc6-dev)") {
		t.Fatal("README must say the test command needs a C compiler, and scripts/test.sh must install gcc")
	}
}

// healthcheck asks for a host whose route answers even with its backends
// down (one with a fallback) when there is one; a pattern is filled in so
// that it matches its own route.
func TestProbeHost(t *testing.T) {
	const head = "config:\n  lite:\n    enabled: true\n    routes:\n"
	tests := []struct{ name, routes, want string }{
		{"first literal in config order", "      - host: [a.example.com, b.example.com]\n        backend: 127.0.0.1:1\n", "a.example.com"},
		{"a route with a fallback first", "      - host: a.example.com\n        backend: 127.0.0.1:1\n      - host: b.example.com\n        backend: 127.0.0.1:1\n        fallback: {motd: down}\n", "b.example.com"},
		{"a pattern, filled in", "      - host: '*.example.com'\n        backend: 127.0.0.1:1\n", "healthcheck.example.com"},
		{"a literal before a pattern", "      - host: '*.example.com'\n        backend: 127.0.0.1:1\n      - host: play.example.net\n        backend: 127.0.0.1:1\n", "play.example.net"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, head+tt.routes)
			if got, err := probeHost(cfg); err != nil || got != tt.want {
				t.Fatalf("probeHost = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func mustParse(t *testing.T, src string) *config.Config {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte(src), "test.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
