package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// wakeYAML is a config of one route a.example.com whose `wake` is wake.
func wakeYAML(backend, wake string) string {
	return strings.Replace(gateYAML("a.example.com", backend), "        fallback:", "        wake: "+wake+"\n        fallback:", 1)
}

// Targets that parse but cannot be built: each names the route and its key.
var unbuildable = []struct {
	name, wake, want string
}{
	{"misspelt exec path", `{exec: [/nonexistent/start-server.sh]}`, "/nonexistent/start-server.sh"},
	{"misspelt exec program", `"exec:staart-the-server"`, "staart-the-server"},
}

const unbuildableAt = "config.yml:7: config.lite.routes[0].wake: route a.example.com: its wake target cannot be built"

func TestValidateReportsAWakeTargetThatCannotBeBuilt(t *testing.T) {
	for _, tt := range unbuildable {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yml")
			writeFile(t, path, wakeYAML("127.0.0.1:1", tt.wake))
			var out, errOut bytes.Buffer
			code := run([]string{"validate", "--config", path}, &out, &errOut)
			if code != 1 || !strings.Contains(out.String(), unbuildableAt) || !strings.Contains(out.String(), tt.want) {
				t.Fatalf("validate: exit %d: %s%s\nwant exit 1 with %q and %q", code, out.String(), errOut.String(), unbuildableAt, tt.want)
			}
		})
	}
}

// docs/lite/wake-targets.md: a misspelt path fails the load, not the first join.
func TestServeStartFailsOnAMisspeltExecPath(t *testing.T) {
	for _, tt := range unbuildable {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yml")
			writeFile(t, path, wakeYAML("127.0.0.1:1", tt.wake))
			var out syncBuffer
			code := serve(context.Background(), []string{"--config", path}, &out, func(*app) { t.Error("gate started") })
			if code != 1 || !strings.Contains(out.String(), unbuildableAt) || !strings.Contains(out.String(), tt.want) {
				t.Fatalf("exit %d, output:\n%s\nwant exit 1 with %q", code, out.String(), unbuildableAt)
			}
		})
	}
}

func TestReloadRejectsAWakeTargetThatCannotBeBuilt(t *testing.T) {
	b := newFakeServer(t, 1, 20)
	g := startGate(t, gateYAML("a.example.com", b.addr), "s3cret")
	writeFile(t, g.path, wakeYAML(b.addr, unbuildable[0].wake))
	// The watcher may see the file empty first (written in place, not renamed): that
	// reload is rejected too, so wait for the rejection that names the target.
	mctest.WaitFor(t, "a rejection naming the wake target", 10*time.Second, func() bool {
		log := g.log.String()
		return strings.Contains(log, "config reload rejected") && strings.Contains(log, "its wake target cannot be built")
	})
	p := joinAs(t, g.proxy, "a.example.com", "bob")
	if err := p.echoed(); err != nil {
		t.Fatalf("after a rejected reload: %v", err)
	}
	_ = p.c.Close()
}
