package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression: Gate's documented top-level `noAutoReload: true` was an unknown key, so
// a Gate config carrying it did not start. It is accepted and turns the file watch
// off, like --no-auto-reload.
func TestNoAutoReloadKeyStartsWithoutTheWatch(t *testing.T) {
	b := newFakeServer(t, 1, 20)
	for _, tc := range []struct {
		extra string
		want  string
	}{
		{"", `"autoReload":true`},
		{"noAutoReload: false\n", `"autoReload":true`},
		{"noAutoReload: true\n", `"autoReload":false`},
	} {
		g := startGate(t, gateYAML("a.example.com", b.addr)+tc.extra, "s3cret")
		var starting string
		for _, l := range strings.Split(g.log.String(), "\n") {
			if strings.Contains(l, `"msg":"starting"`) {
				starting = l
			}
		}
		if !strings.Contains(starting, tc.want) {
			t.Fatalf("with %q: starting line %q, want %s", tc.extra, starting, tc.want)
		}
	}
}

// `gate validate` reports a backend that a tcpShieldRealIP route and a route without
// it share, at the line of the unshielded use.
func TestValidateWarnsAboutABackendOnShieldedAndPlainRoutes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yml")
	if err := os.WriteFile(path, []byte(`config:
  lite:
    enabled: true
    routes:
      - host: shield.example.com
        backend: 10.0.0.1:25565
        tcpShieldRealIP: true
      - host: direct.example.com
        backend: 10.0.0.1
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"validate", "-c", path}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	want := "warning: " + path + `:9: config.lite.routes[1].backend: backend "10.0.0.1" is also reached by route 0 (line 5) with tcpShieldRealIP`
	if !strings.Contains(out.String(), want) {
		t.Fatalf("validate said:\n%s\nwant a line starting %q", out.String(), want)
	}
}
