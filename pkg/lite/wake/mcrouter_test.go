package wake

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"go.minekube.com/gate/internal/mctest"
)

// mc-router's wake cases of server/routes_test.go (Test_routesImpl_ScaleKey,
// Test_routesImpl_LoadingMOTD, Test_routesImpl_SetCountdownDeadline...), each
// named after mc-router's. Its "scaling target" is our wake target (Spec.Key);
// its route backend is a Route's Backends.

// scaler is a stopped target that records its wake calls.
type scaler struct {
	key  string
	mu   sync.Mutex
	reqs []Request
}

func (s *scaler) Key() string                         { return s.key }
func (*scaler) Running(context.Context) (bool, error) { return false, nil }
func (*scaler) Sleep(context.Context, Request) error  { return nil }
func (s *scaler) Wake(_ context.Context, req Request) (Result, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return Result{}, nil
}

func (s *scaler) woken() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// scalers builds a scaler per docker container name.
func scalers(t *testing.T, names ...string) (*Routes, map[string]*scaler) {
	t.Helper()
	by := map[string]*scaler{}
	for _, n := range names {
		by[docker(n).Key()] = &scaler{key: docker(n).Key()}
	}
	w, _ := newTestRoutes(t, func(s Spec) (Target, error) { return by[s.Key()], nil })
	return w, by
}

// holdWaking starts a held login of route that stays in the readiness wait
// until the test ends, and waits until its target wakes.
func holdWaking(t *testing.T, w *Routes, route, target string) {
	t.Helper()
	release, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_, _ = w.Hold(context.Background(), route, route, func(ctx context.Context, _ Result) (string, bool) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "", false
		})
	}()
	t.Cleanup(func() { close(release); w.Close(); <-done })
	mctest.WaitFor(t, route+" waking", wait, func() bool { return w.Coordinator().Phase(target) == PhaseWaking })
}

const proxyBackend = "proxy:25577"

func TestMCRouterScaleKey(t *testing.T) {
	// The route's backend is a proxy (mc-router.itzg.me/proxyServerName);
	// the target woken is the server behind it, never the backend.
	t.Run("scaleKey is set when provided", func(t *testing.T) {
		w, by := scalers(t, "mc-5")
		w.Bind([]Route{{Key: "mc.example.com", Spec: docker("mc-5"), Host: "mc.example.com", Backends: []string{proxyBackend}}})
		mctest.WaitFor(t, "asleep", wait, func() bool { return w.Asleep("mc.example.com") })
		if _, err := w.Hold(context.Background(), "mc.example.com", "mc.example.com", func(context.Context, Result) (string, bool) {
			return proxyBackend, true
		}); err != nil {
			t.Fatal(err)
		}
		if got := by["docker mc-5"].woken(); len(got) != 1 || got[0].Backend != proxyBackend {
			t.Fatalf("wake calls %+v, want one naming the route's backend %s", got, proxyBackend)
		}
	})
	t.Run("GetSleepers matches on scaleKey not backend", func(t *testing.T) {
		w, by := scalers(t, "mc-1", "mc-2")
		w.Bind([]Route{
			{Key: "mc1.example.com", Spec: docker("mc-1"), Backends: []string{proxyBackend}},
			{Key: "mc2.example.com", Spec: docker("mc-2"), Backends: []string{proxyBackend}},
		})
		mctest.WaitFor(t, "asleep", wait, func() bool { return w.Asleep("mc1.example.com") && w.Asleep("mc2.example.com") })
		if _, err := w.Hold(context.Background(), "mc1.example.com", "mc1.example.com", readyNow); err != nil {
			t.Fatal(err)
		}
		if n1, n2 := len(by["docker mc-1"].woken()), len(by["docker mc-2"].woken()); n1 != 1 || n2 != 0 {
			t.Fatalf("wake calls: mc-1 %d, mc-2 %d; want 1, 0", n1, n2)
		}
		if p := w.Coordinator().Phase(proxyBackend); p != "" {
			t.Fatalf("the shared backend is a target (phase %q)", p)
		}
	})
	t.Run("default route scaleKey", func(t *testing.T) {
		w, _ := scalers(t, "mc-5")
		w.Bind([]Route{{Key: "*", Spec: docker("mc-5"), Host: "*", Backends: []string{proxyBackend}}})
		mctest.WaitFor(t, "asleep", wait, func() bool { return w.Coordinator().Phase("docker mc-5") == PhaseAsleep })
		if !w.Bound("*") {
			t.Fatal("the default route has no target")
		}
	})
	// A route without `wake` is never bound: no target, whatever its backend.
	t.Run("default route scaleKey defaults to backend", func(t *testing.T) {
		w, _ := scalers(t)
		w.Bind(nil)
		if w.Bound("*") || len(w.Coordinator().States()) != 0 {
			t.Fatal("a route without wake got a target")
		}
	})
}

func TestMCRouterLoadingMOTD(t *testing.T) {
	w, _ := scalers(t, "mc", "def")
	w.Bind([]Route{
		{Key: "mc.example.com", Spec: docker("mc"), AsleepMOTD: json.RawMessage(`"asleep"`), LoadingMOTD: json.RawMessage(`"loading"`)},
		{Key: "*", Spec: docker("def"), AsleepMOTD: json.RawMessage(`"default asleep"`), LoadingMOTD: json.RawMessage(`"default loading"`)},
	})
	mctest.WaitFor(t, "asleep", wait, func() bool { return w.Asleep("mc.example.com") && w.Asleep("*") })
	holdWaking(t, w, "mc.example.com", "docker mc")
	holdWaking(t, w, "*", "docker def")
	for route, want := range map[string]string{"mc.example.com": `"loading"`, "*": `"default loading"`} {
		if _, motd, ok := w.Down(route); !ok || string(motd) != want {
			t.Fatalf("%s: loading MOTD %s (down %v), want %s", route, motd, ok, want)
		}
	}
	// mc-router answers "" for a host it has no mapping for; here such a
	// host never reaches a route key (the table sends it to "*" or nowhere).
	if _, motd, ok := w.Down("other.example.com"); ok {
		t.Fatalf("a host with no route has loading MOTD %s", motd)
	}
}

// Test_routesImpl_SetCountdownDeadlineWithoutDefaultRoute: mc-router fills
// "{duration}" in its MOTDs with the time left until a scale-down. We differ:
// the MOTD is shown as written (a held login's Disconnect says how long a
// wake usually takes instead), and nothing is counted without a route.
func TestMCRouterSetCountdownDeadlineWithoutDefaultRoute(t *testing.T) {
	w, _ := scalers(t, "mc")
	if _, _, ok := w.Down("*"); ok {
		t.Fatal("a route set without a default route answers for it")
	}
	w.Bind([]Route{{Key: "mc.example.com", Spec: docker("mc"), AsleepMOTD: json.RawMessage(`"back in {duration}"`)}})
	mctest.WaitFor(t, "asleep", wait, func() bool { return w.Asleep("mc.example.com") })
	if _, motd, _ := w.Down("mc.example.com"); string(motd) != `"back in {duration}"` {
		t.Fatalf("MOTD %s, want it as written", motd)
	}
}
