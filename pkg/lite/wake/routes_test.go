package wake

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// stub is a Target that only names itself; the seam's tests never call it.
type stub string

func (s stub) Key() string                                 { return string(s) }
func (stub) Wake(context.Context, Request) (Result, error) { return Result{}, nil }
func (stub) Sleep(context.Context, Request) error          { return nil }

// builds is a Factory that counts its calls per key and can be made to block or fail.
type builds struct {
	calls sync.Map // key -> *atomic.Int64
	block chan struct{}
	fail  error
}

func (b *builds) build(s Spec) (Target, error) {
	n, _ := b.calls.LoadOrStore(s.Key(), new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	if b.block != nil {
		<-b.block
	}
	if b.fail != nil {
		return nil, b.fail
	}
	return stub(s.Key()), nil
}

func (b *builds) count(key string) int64 {
	n, ok := b.calls.Load(key)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

func newTestRoutes(t *testing.T, f Factory) (*Routes, *mctest.Logs) {
	t.Helper()
	logs := &mctest.Logs{}
	w := NewRoutes(RoutesOptions{Factory: f, Log: logs.Logger(0), Render: func(body []byte, motd json.RawMessage) ([]byte, bool) {
		return append(append([]byte(nil), motd...), body...), true
	}})
	t.Cleanup(w.Close)
	return w, logs
}

func docker(name string) Spec { return Spec{Kind: KindDocker, Name: name} }

// A reload that keeps a spec keeps its target (the factory is not called again); a
// changed spec is built anew; a spec dropped and named again later is built again.
func TestRoutesBuildEachSpecOnceAcrossReloads(t *testing.T) {
	b := &builds{}
	w, _ := newTestRoutes(t, b.build)
	a := Route{Key: "a", Spec: docker("mc-a"), Backends: []string{"127.0.0.1:1"}}
	w.Bind([]Route{a})
	w.Bind([]Route{a, {Key: "a2", Spec: docker("mc-a")}})
	if n := b.count("docker mc-a"); n != 1 {
		t.Fatalf("factory called %d times for an unchanged spec, want 1", n)
	}
	a.Spec.Timeout = time.Second
	w.Bind([]Route{a})
	if n := b.count("docker mc-a"); n != 2 {
		t.Fatalf("factory called %d times after the spec changed, want 2", n)
	}
	w.Bind(nil)
	w.Bind([]Route{a})
	if n := b.count("docker mc-a"); n != 3 {
		t.Fatalf("factory called %d times after a drop and re-add, want 3", n)
	}
	if !w.Bound("a") || w.Bound("a2") {
		t.Fatalf("bound: a %v, a2 %v; want only a", w.Bound("a"), w.Bound("a2"))
	}
}

// A target that cannot be built leaves its route unbound (served without waking),
// logged once however often the route set is bound again.
func TestRoutesTargetThatCannotBeBuiltIsLoggedOnce(t *testing.T) {
	b := &builds{fail: errors.New("no such container")}
	w, logs := newTestRoutes(t, b.build)
	r := Route{Key: "bad", Origin: "docker x", Spec: docker("x")}
	for range 3 {
		w.Bind([]Route{r})
	}
	if w.Bound("bad") || w.Asleep("bad") {
		t.Fatal("a route whose target failed to build is bound")
	}
	if n := logs.Count("wake target unusable"); n != 1 {
		t.Fatalf("%d log lines for one bad target, want 1", n)
	}
}

// Regression: the factory (which may read a kubeconfig or search PATH) ran under the
// lock every ping of a sleeping route takes. A Bind blocked in the factory now
// leaves the seam answering.
func TestRoutesFactoryRunsOutsideTheLocks(t *testing.T) {
	b := &builds{}
	w, _ := newTestRoutes(t, b.build)
	w.Bind([]Route{{Key: "a", Spec: docker("mc-a")}})
	w.Observe("a", []byte(`{}`), 0, false)
	b.block = make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Bind([]Route{{Key: "a", Spec: docker("mc-a")}, {Key: "b", Spec: docker("mc-b")}})
	}()
	mctest.WaitFor(t, "the factory to be called", 5*time.Second, func() bool { return b.count("docker mc-b") == 1 })
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		_ = w.Asleep("a")
		_, _, _ = w.Down("a")
		w.Observe("a", []byte(`{}`), 1, true)
	}()
	select {
	case <-answered:
	case <-time.After(5 * time.Second):
		t.Fatal("the seam did not answer while a factory call was under way")
	}
	close(b.block)
	<-done
}

// A session joined on a route keeps its target until it ends, once.
func TestRoutesSessions(t *testing.T) {
	w, _ := newTestRoutes(t, (&builds{}).build)
	w.Bind([]Route{{Key: "a", Spec: docker("mc-a")}})
	w.Joined("a", 7)
	if s := w.Coordinator().States()[0].Sessions; s != 1 {
		t.Fatalf("%d sessions after a join, want 1", s)
	}
	w.Ended(7)
	w.Ended(7)
	if s := w.Coordinator().States()[0].Sessions; s != 0 {
		t.Fatalf("%d sessions after the end, want 0", s)
	}
}

// A ping of a sleeping route shows the asleep MOTD (on its card once a backend
// answered, following a reload); while its target wakes, the loading MOTD;
// once awake, Down leaves the ping to the backends.
func TestRoutesDownShowsThePhasesDescription(t *testing.T) {
	w, _ := newTestRoutes(t, func(Spec) (Target, error) { return &asleepTarget{}, nil })
	r := Route{Key: "a", Spec: docker("sleepy"), AsleepMOTD: json.RawMessage(`"zz"`), LoadingMOTD: json.RawMessage(`"ll"`)}
	w.Bind([]Route{r})
	mctest.WaitFor(t, "the target to be seen asleep", wait, func() bool { return w.Asleep("a") })
	down := func(wantCard, wantMOTD string) {
		t.Helper()
		card, motd, ok := w.Down("a")
		if !ok || string(card) != wantCard || string(motd) != wantMOTD {
			t.Fatalf("Down = %q, %q, %v; want %q, %q, true", card, motd, ok, wantCard, wantMOTD)
		}
	}
	down("", `"zz"`)
	w.Observe("a", []byte(`{}`), 0, true)
	down(`"zz"{}`, `"zz"`)
	r.AsleepMOTD = json.RawMessage(`"yy"`)
	w.Bind([]Route{r})
	down(`"yy"{}`, `"yy"`)

	ready, held := make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := w.Hold(context.Background(), "a", "a.example.com", func(ctx context.Context, _ Result) (string, bool) {
			select {
			case <-ready:
				return backend, true
			case <-ctx.Done():
				return "", false
			}
		})
		held <- err
	}()
	mctest.WaitFor(t, "the target to wake", wait, func() bool { return w.Coordinator().Phase("docker sleepy") == PhaseWaking })
	down(`"ll"{}`, `"ll"`)
	down(`"ll"{}`, `"ll"`) // rendered once, kept
	close(ready)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if card, motd, ok := w.Down("a"); ok {
		t.Fatalf("Down of an awake target = %q, %q, true", card, motd)
	}
}

// asleepTarget says it is stopped and records what wake calls ask.
type asleepTarget struct {
	mu  sync.Mutex
	req Request
}

func (*asleepTarget) Key() string                           { return "docker sleepy" }
func (*asleepTarget) Running(context.Context) (bool, error) { return false, nil }
func (*asleepTarget) Sleep(context.Context, Request) error  { return nil }
func (a *asleepTarget) Wake(_ context.Context, req Request) (Result, error) {
	a.mu.Lock()
	a.req = req
	a.mu.Unlock()
	return Result{}, nil
}

// A held login's wake call names the host the player asked for and the route's first
// backend (a webhook's body carries both).
func TestRoutesHoldNamesTheHostAndTheFirstBackend(t *testing.T) {
	a := &asleepTarget{}
	w, _ := newTestRoutes(t, func(Spec) (Target, error) { return a, nil })
	w.Bind([]Route{{Key: "r", Spec: docker("sleepy"), Host: "*.example.com", Backends: []string{"10.0.0.1:25565", "10.0.0.2:25565"}}})
	mctest.WaitFor(t, "the target to be seen asleep", 5*time.Second, func() bool { return w.Asleep("r") })
	addr, err := w.Hold(context.Background(), "r", "play.example.com", func(context.Context, Result) (string, bool) {
		return "10.0.0.1:25565", true
	})
	if err != nil || addr != "10.0.0.1:25565" {
		t.Fatalf("Hold = %q, %v", addr, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.req != (Request{ServerAddress: "play.example.com", Backend: "10.0.0.1:25565"}) {
		t.Fatalf("wake asked with %+v", a.req)
	}
}
