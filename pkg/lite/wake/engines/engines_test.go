package engines

import (
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/wake"
)

func TestCheckNeedsNoEngine(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec wake.Spec
		want string // "" accepts
	}{
		{"exec on the PATH", wake.Spec{Kind: wake.KindExec, Command: []string{"true"}}, ""},
		{"misspelt exec path", wake.Spec{Kind: wake.KindExec, Command: []string{"/nonexistent/start.sh"}}, "/nonexistent/start.sh"},
		{"misspelt sleep program", wake.Spec{Kind: wake.KindExec, Command: []string{"true"}, SleepCommand: []string{"stpo-it"}}, "stpo-it"},
		{"docker name", wake.Spec{Kind: wake.KindDocker, Name: "mc-1"}, ""},
		{"bad docker name", wake.Spec{Kind: wake.KindDocker, Name: "bad name"}, "not a Docker container name"},
		{"webhook", wake.Spec{Kind: wake.KindWebhook, URL: "https://h.example/wake"}, ""},
		{"webhook without a host", wake.Spec{Kind: wake.KindWebhook, URL: "https://"}, "needs http:// or https:// and a host"},
		{"kubernetes, no API server needed", wake.Spec{Kind: wake.KindKubernetes, Resource: "deployment", Namespace: "games", Name: "mc"}, ""},
		{"kubernetes name", wake.Spec{Kind: wake.KindKubernetes, Resource: "deployment", Namespace: "games", Name: "MC"}, "not a Kubernetes object name"},
		{"unknown kind", wake.Spec{Kind: "pod"}, `no engine for "pod" targets`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.spec)
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Check: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCheckRoutesNamesTheRouteAndKey(t *testing.T) {
	cfg := &config.Config{File: "config.yml"}
	cfg.Lite.Routes = []config.Route{
		{Host: []string{"ok.example.com"}, Line: 5, Wake: &wake.Spec{Kind: wake.KindExec, Command: []string{"true"}}},
		{Host: []string{"a.example.com", "b.example.com"}, Line: 9, Wake: &wake.Spec{Kind: wake.KindExec, Command: []string{"staart"}}},
		{Host: []string{"plain.example.com"}, Line: 14},
	}
	err := CheckRoutes(cfg)
	want := "config.yml:9: config.lite.routes[1].wake: route a.example.com,b.example.com: its wake target cannot be built: exec staart:"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "\n") != 0 {
		t.Fatalf("CheckRoutes: %v, want one error starting %q", err, want)
	}
	cfg.Lite.Routes = cfg.Lite.Routes[:1]
	if err := CheckRoutes(cfg); err != nil {
		t.Fatalf("CheckRoutes of good routes: %v", err)
	}
}

// Holders are picked by the kind of the spec a key's target was built from:
// an exec target whose command looks like a Kubernetes key stays local (no
// API server is asked for, none is configured).
func TestHoldersFollowTheBuiltSpecsKind(t *testing.T) {
	e := New(&config.Config{})
	defer e.Close()
	tg, err := e.Target(wake.Spec{Kind: wake.KindExec, Command: []string{"true", "kubernetes"}})
	if err != nil {
		t.Fatal(err)
	}
	h := e.Holders()
	if err := h.Hold(t.Context(), tg.Key(), 1); err != nil {
		t.Fatalf("Hold of an exec target: %v", err)
	}
	if ok, err := h.ClaimSleep(t.Context(), tg.Key(), 0); err != nil || ok {
		t.Fatalf("ClaimSleep while held: %v %v, want false", ok, err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBECONFIG", "")
	k := wake.Spec{Kind: wake.KindKubernetes, Resource: "deployment", Namespace: "games", Name: "mc"}
	if _, err := e.Target(k); err == nil || !strings.Contains(err.Error(), "config.lite.discovery.kubernetes.kubeconfig") {
		t.Fatalf("a Kubernetes target without an API server: %v", err)
	}
}

// A hook is checked at load like a route's target: discovered routes name
// it later, and a misspelt program must not wait for their first join.
func TestCheckRoutesChecksTheHooks(t *testing.T) {
	cfg := &config.Config{File: "config.yml"}
	cfg.Lite.Wake.Hooks = map[string]config.WakeHook{
		"ok":   {Wake: wake.Spec{Kind: wake.KindExec, Command: []string{"true"}}, Line: 7},
		"typo": {Wake: wake.Spec{Kind: wake.KindExec, Command: []string{"staart"}}, Line: 9},
	}
	err := CheckRoutes(cfg)
	want := "config.yml:9: config.lite.wake.hooks.typo.wake: hook typo: its wake target cannot be built: exec staart:"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "\n") != 0 {
		t.Fatalf("CheckRoutes: %v, want one error starting %q", err, want)
	}
}
