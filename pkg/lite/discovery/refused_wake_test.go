package discovery_test

import (
	"strings"
	"testing"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// A discovered route whose only fault is a `wake` it may not ask for (another
// namespace's workload, a command, a webhook) loses its waking, not its players: the
// refusal is logged once and listed under the source, and the route is served.
func TestRouteWithARefusedWakeIsServedWithoutWaking(t *testing.T) {
	fileBackend, b := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.ReplaceAll(fileYAML, "{{file}}", fileBackend.Addr()))
	set := []discovery.Route{{Origin: "kubernetes tenant/lobby", Hosts: []string{"lobby.test"}, KeyPrefix: "gate.minekube.com/",
		Namespace: "tenant", Backends: []discovery.Backend{{Addr: b.Addr()}},
		Settings: map[string]string{"wake": "games/deployment/victim"}}}
	w.merger.Replace("kubernetes", set)
	w.merger.Replace("kubernetes", set)
	w.login("lobby.test")
	if b.Logins() != 1 {
		t.Fatalf("the route served %d logins, want 1", b.Logins())
	}
	lines := w.logs.Find("wake refused")
	if len(lines) != 1 || !strings.Contains(lines[0], "kubernetes tenant/lobby") || !strings.Contains(lines[0], "gate.minekube.com/wake") {
		t.Fatalf("refusal lines = %q", lines)
	}
	if ss := w.merger.Sources(); len(ss[0].Rejected) != 1 || ss[0].Routes != 1 {
		t.Fatalf("sources = %+v", ss)
	}
}
