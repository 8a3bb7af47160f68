package lite

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/strategy"
)

func TestWhy(t *testing.T) {
	until := time.Date(2024, 5, 1, 12, 0, 30, 0, time.UTC)
	tests := []struct {
		name     string
		reason   strategy.Reason
		panic    bool
		eligible bool
		why      string
	}{
		{"new backend", strategy.ReasonNew, false, true, "eligible: no state yet (new backend, tried like a healthy one)"},
		{"healthy", strategy.ReasonHealthy, false, true, "eligible: healthy"},
		{"unmeasured", strategy.ReasonUnmeasured, false, true, "eligible: not measured yet, tried like a healthy one"},
		{"down", strategy.ReasonDown, false, false, "demoted: active health checks failing"},
		{"ejected", strategy.ReasonEjected, false, false, "demoted: ejected after 3 failures until 12:00:30"},
		{"ejection over, probe pending", strategy.ReasonAwaitingProbe, false, false,
			"demoted: ejection over, waiting for probes to pass"},
		{"panic tries every backend", strategy.ReasonDown, true, true,
			"eligible (panic): fewer than half of the route's backends are usable, so all are tried; demoted: active health checks failing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := strategy.Verdict{Addr: "a", Known: tt.reason != strategy.ReasonNew, Reason: tt.reason,
				Usable: tt.reason.Usable(), Panic: tt.panic, State: strategy.BackendState{EjectedUntil: until}}
			got := render("r", "", v)
			if got.Eligible != tt.eligible || got.Why != tt.why || got.Reason != tt.reason.String() {
				t.Fatalf("got eligible=%v why=%q reason=%q, want %v %q %q", got.Eligible, got.Why, got.Reason, tt.eligible, tt.why, tt.reason)
			}
		})
	}
}

func TestRoutesAndBackends(t *testing.T) {
	// The config package is exercised through lite.New, so build from YAML.
	l := newTestLite(t, `
config:
  lite:
    enabled: true
    routes:
      - host: [play.example.com, example.com]
        backend: [127.0.0.1:1, 127.0.0.1:2]
        strategy: round-robin
        fallback:
          motd: down
      - host: '*.dev.example.com'
        backend: $1.dev.svc:25565
`)
	routes := l.Routes()
	if len(routes) != 2 || routes[0].Key != "play.example.com,example.com" || routes[0].Strategy != "round-robin" ||
		!routes[0].Fallback || routes[1].Backends[0] != "$1.dev.svc:25565" || routes[1].Fallback {
		t.Fatalf("routes = %+v", routes)
	}
	// One player's host expanded the template; the manager now tracks that address.
	l.mgr.Order("*.dev.example.com", []string{"abc.dev.svc:25565"}, strategy.IntentLogin)
	var rows []string
	for _, b := range l.Backends() {
		rows = append(rows, b.Route+" "+b.Backend+" "+b.Template+" "+strings.SplitN(b.Why, ":", 2)[0])
	}
	want := []string{
		"play.example.com,example.com 127.0.0.1:1  eligible",
		"play.example.com,example.com 127.0.0.1:2  eligible",
		"*.dev.example.com $1.dev.svc:25565 $1.dev.svc:25565 template",
		"*.dev.example.com abc.dev.svc:25565 $1.dev.svc:25565 eligible",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("backends:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// newTestLite builds a Lite (seed 1) from yaml, without serving it.
func newTestLite(t testing.TB, yaml string) *Lite {
	t.Helper()
	cfg, _, err := config.Parse([]byte(yaml), "info.yml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(cfg, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return l
}
