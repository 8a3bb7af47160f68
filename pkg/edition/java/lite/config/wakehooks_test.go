package config_test

import (
	"errors"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/wake"
)

// ownWakeCases are `wake` values written on a discovered object: a Service
// of namespace aaa-tenant, or the container "tenant". want "" accepts;
// anything else is part of the refusal.
var ownWakeCases = []struct {
	name, namespace, container, wake, want string
}{
	{"own deployment", "aaa-tenant", "", "deployment/own", ""},
	{"own statefulset named with its namespace", "aaa-tenant", "", "aaa-tenant/statefulset/own", ""},
	{"own deployment as a mapping", "aaa-tenant", "", "{kubernetes: deployment/own}", ""},
	{"own container", "", "tenant", "container", ""},
	{"own container by name", "", "tenant", "container/tenant", ""},
	{"own container as a mapping", "", "tenant", "{docker: tenant}", ""},
	{"exec text", "aaa-tenant", "", "exec:/bin/sh -c id", "a command runs as the proxy"},
	{"exec mapping", "aaa-tenant", "", `{exec: [/bin/true], sleep: [/bin/sh, -c, "id > f"]}`, "a command runs as the proxy"},
	{"exec on a container", "", "tenant", "exec:/bin/true", "a command runs as the proxy"},
	{"webhook text", "aaa-tenant", "", "http://169.254.169.254/latest", "a webhook is called by the proxy"},
	{"webhook mapping", "", "tenant", "{webhook: 'http://127.0.0.1:9/'}", "a webhook is called by the proxy"},
	{"foreign namespace", "aaa-tenant", "", "games/deployment/victim", `games/deployment/victim is not in this object's namespace "aaa-tenant"`},
	{"foreign namespace as a mapping", "aaa-tenant", "", "{kubernetes: deployment/victim, namespace: games}", "is not in this object's namespace"},
	{"foreign container", "", "tenant", "container/victim-db", `container "victim-db" is not this route's own container "tenant"`},
	{"foreign container as a mapping", "", "tenant", "{docker: victim-db}", "is not this route's own container"},
	{"a shared route owns no container", "", "", "container/a", "this route owns no container"},
	{"a container wakes no workload", "", "tenant", "default/deployment/mc", "a container wakes no Kubernetes workload"},
	{"a Service wakes no container", "aaa-tenant", "", "container/tenant", "this route owns no container"},
	{"a hook the file does not define", "aaa-tenant", "", "hook/scale", `no hook "scale" in config.lite.wake.hooks (none are defined)`},
}

// Regression (issue 30): a Service annotation or container label named a
// command, a webhook, another namespace's workload or another container, and
// the proxy ran, called, scaled or stopped it.
func TestDiscoveredWakeAsksOnlyForItsOwnServer(t *testing.T) {
	l := discoveryLite(t)
	for _, tt := range ownWakeCases {
		t.Run(tt.name, func(t *testing.T) {
			origin := "kubernetes " + tt.namespace + "/svc"
			if tt.namespace == "" {
				origin = "docker " + tt.container
			}
			r, _, err := l.DecodeDiscovered(config.Discovered{Origin: origin, KeyPrefix: "gate.", Hosts: []string{"t.example.com"},
				Namespace: tt.namespace, Container: tt.container, Settings: map[string]string{"wake": tt.wake, "idleAfter": "2s"}})
			if tt.want == "" {
				if err != nil || r.Wake == nil {
					t.Fatalf("refused its own server: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), origin+": gate.wake: ") {
				t.Fatalf("err = %v\nwant %q after %q", err, tt.want, origin+": gate.wake: ")
			}
			if strings.Contains(tt.want, "config.lite.wake.hooks") {
				return // an unknown name is a bad value, not a refusal
			}
			if !errors.Is(err, config.ErrNotGranted) {
				t.Errorf("err = %v, want ErrNotGranted", err)
			}
		})
	}
}

const hooksFile = `config:
  lite:
    enabled: true
    discovery:
      kubernetes: {enabled: true}
    wake:
      hooks:
        scale-games:
          wake: {exec: [/bin/true, up], sleep: [/bin/true, down]}
          namespaces: [games]
          containers: mc-1
        anyone:
          wake: https://hooks.example.com/wake
          namespaces: ["*"]
          containers: ["*"]
        file-only:
          wake: other/deployment/mc
    routes:
      - host: f.example.com
        backend: 127.0.0.1:1
        wake: hook/file-only
`

func TestWakeHooksAreGrantedByTheFile(t *testing.T) {
	cfg, _, err := config.Parse([]byte(hooksFile), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Lite.Routes[0].Wake; w == nil || w.Key() != "kubernetes other/deployment/mc" {
		t.Fatalf("the file route's hook: %+v", w)
	}
	for _, tt := range []struct {
		name, namespace, container, hook, key string // key "" is refused
	}{
		{"granted namespace", "games", "", "scale-games", "exec /bin/true up"},
		{"other namespace", "aaa-tenant", "", "scale-games", ""},
		{"granted container", "", "mc-1", "scale-games", "exec /bin/true up"},
		{"other container", "", "mc-2", "scale-games", ""},
		{"shared route, named grant", "", "", "scale-games", ""},
		{"every namespace", "aaa-tenant", "", "anyone", "webhook https://hooks.example.com/wake"},
		{"every container, shared route too", "", "", "anyone", "webhook https://hooks.example.com/wake"},
		{"granted to nobody", "other", "", "file-only", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := cfg.Lite.DecodeDiscovered(config.Discovered{Origin: "o", KeyPrefix: "gate.", Hosts: []string{"t.example.com"},
				Namespace: tt.namespace, Container: tt.container, Settings: map[string]string{"wake": "hook/" + tt.hook}})
			if tt.key == "" {
				if !errors.Is(err, config.ErrNotGranted) || !strings.Contains(err.Error(), `o: gate.wake: wake: hook "`+tt.hook+`" is not granted to this object`) {
					t.Fatalf("err = %v, want the hook refused", err)
				}
				return
			}
			if err != nil || r.Wake == nil || r.Wake.Key() != tt.key {
				t.Fatalf("wake = %+v, %v; want %s", r.Wake, err, tt.key)
			}
		})
	}
}

func TestWakeHooksBadValuesNameFileLineAndKey(t *testing.T) {
	_, _, err := config.Parse([]byte(`config:
  lite:
    enabled: true
    wake:
      hooks:
        nothing: {namespaces: [games]}
        loop: {wake: hook/nothing}
        "a/b": {wake: deployment/mc}
        typo: {wake: deployment/mc, namespace: [games]}
        bad: {wake: "ftp://x"}
    routes:
      - host: a
        backend: 127.0.0.1:1
        wake: hook/nope
`), "config.yml")
	for _, want := range []string{
		`config.yml:6: config.lite.wake.hooks.nothing.wake: missing: a hook names its wake target`,
		`config.yml:7: config.lite.wake.hooks.loop.wake: wake: no hook "nothing" in config.lite.wake.hooks`,
		`config.yml:8: config.lite.wake.hooks.a/b: hook name "a/b": want a name without '/' or spaces`,
		`config.yml:9: config.lite.wake.hooks.typo.namespace: unknown key "namespace" (did you mean "namespaces"?)`,
		`config.yml:10: config.lite.wake.hooks.bad.wake: wake: unknown kind "ftp"`,
		`config.yml:14: config.lite.routes[0].wake: wake: no hook "nope" in config.lite.wake.hooks (none are defined)`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// The text form names a hook only through the config: wake.ParseSpec alone
// refuses it rather than read it as a Kubernetes kind.
func TestParseSpecLeavesHooksToTheConfig(t *testing.T) {
	if _, err := wake.ParseSpec("hook/x", "games", ""); err == nil || !strings.Contains(err.Error(), "names a hook") {
		t.Fatalf("ParseSpec(hook/x): %v", err)
	}
	if name, ok := wake.HookName(" Hook/scale "); !ok || name != "scale" {
		t.Fatalf("HookName = %q %v", name, ok)
	}
}

// A refused wake leaves a route that can be served without waking: the
// caller decides (a bad value of any other key leaves nothing).
func TestRefusedWakeStillDecodesTheRouteWithoutIt(t *testing.T) {
	l := discoveryLite(t)
	in := config.Discovered{Origin: "kubernetes aaa-tenant/lobby", KeyPrefix: "gate.minekube.com/", Hosts: []string{"t.example.com"},
		Backends: []string{"10.9.0.11:25565"}, Namespace: "aaa-tenant",
		Settings: map[string]string{"wake": "games/deployment/victim", "strategy": "round-robin"}}
	r, _, err := l.DecodeDiscovered(in)
	if !errors.Is(err, config.ErrNotGranted) || r.Wake != nil || len(r.Host) != 1 || len(r.Backend) != 1 {
		t.Fatalf("route %+v, err %v; want the route without its wake and ErrNotGranted", r, err)
	}
	in.Settings["strategy"] = "fastest"
	if r, _, err := l.DecodeDiscovered(in); err == nil || len(r.Host) != 0 {
		t.Fatalf("with a bad strategy too: route %+v, err %v; want no route", r, err)
	}
}
