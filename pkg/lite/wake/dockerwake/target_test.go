package dockerwake_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	dockersource "go.minekube.com/gate/pkg/lite/discovery/docker"
	"go.minekube.com/gate/pkg/lite/engine/docker"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/dockerwake"
)

// protocol is the protocol version the tests write into status pings.
const protocol = 767

// The tests watch routes as the gate binary does, through the Docker
// discovery source: a stopped container labelled gate.wake keeps its route.

// latest is a discovery.Sink that keeps the newest route set.
type latest struct {
	mu     sync.Mutex
	routes []discovery.Route
}

func (l *latest) Replace(_ string, routes []discovery.Route) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.routes = slices.Clone(routes)
}

func (l *latest) Stale(string, error) {}

// route is the newest route with a host starting with prefix.
func (l *latest) route(prefix string) (discovery.Route, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, rt := range l.routes {
		for _, h := range rt.Hosts {
			if strings.HasPrefix(h, prefix) {
				return rt, true
			}
		}
	}
	return discovery.Route{}, false
}

// watchRoutes runs a source against the daemon at host until the test ends
// and returns the newest route of a host starting with prefix.
func watchRoutes(t *testing.T, host string) func(prefix string) (discovery.Route, bool) {
	t.Helper()
	src, err := dockersource.New(dockersource.Options{
		Config:     config.DockerDiscovery{Enabled: true, Host: host},
		Log:        (&mctest.Logs{}).Logger(1),
		MinBackoff: 20 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	l := &latest{}
	mctest.Run(t, "docker source", func(ctx context.Context) error { return src.Run(ctx, l) })
	return l.route
}

func newTarget(t *testing.T, host, name string, grace time.Duration) *dockerwake.Target {
	t.Helper()
	c, err := docker.Dial(host, docker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tg, err := dockerwake.New(c, wake.Spec{Kind: wake.KindDocker, Name: name, Timeout: grace})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// waitBackends waits until the route of host has exactly the given backends.
func waitBackends(t *testing.T, route func(string) (discovery.Route, bool), host string, d time.Duration, want ...string) discovery.Route {
	t.Helper()
	var rt discovery.Route
	mctest.WaitFor(t, "route "+host+" with backends "+joinAddrs(want), d, func() bool {
		var ok bool
		rt, ok = route(host)
		if !ok || len(rt.Backends) != len(want) {
			return false
		}
		for i, b := range rt.Backends {
			if b.Addr != want[i] {
				return false
			}
		}
		return true
	})
	return rt
}

func joinAddrs(a []string) string {
	s := "["
	for i, x := range a {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s + "]"
}

func TestStoppedWakeContainerKeepsItsRouteAndWakesOnceFor50ConcurrentWakes(t *testing.T) {
	e := enginetest.NeedDocker(t)
	name := enginetest.Uniq("sleepy")
	host := enginetest.Uniq("sleepy") + ".example.com"
	// The source runs first, so the route comes from the create event.
	route := watchRoutes(t, e.Host)
	id := e.Create(t, enginetest.Container{Name: name, Labels: map[string]string{"gate.hosts": host, "gate.wake": "container", "gate.idleAfter": "10m"}})

	rt := waitBackends(t, route, host, 10*time.Second)
	if rt.Container != name || rt.Settings["wake"] != "container" || rt.Settings["idleAfter"] != "10m" {
		t.Fatalf("stopped wake container's route: %+v", rt)
	}
	tg := newTarget(t, e.Host, name, 5*time.Second)
	if tg.Key() != "docker "+name {
		t.Errorf("key %q", tg.Key())
	}
	ctx := context.Background()
	if on, err := tg.Running(ctx); err != nil || on {
		t.Fatalf("Running before the wake: %v, %v", on, err)
	}

	// 50 concurrent wakes: the daemon starts the container once and answers
	// the others "already started", which is success.
	since := time.Now()
	wakeAtOnce(t, tg, 50, host)
	woke := time.Since(since)
	if n := e.Events(t, id, "start", since.Add(-time.Second), time.Now()); n != 1 {
		t.Errorf("50 concurrent wakes started the container %d times, want 1", n)
	}
	if on, err := tg.Running(ctx); err != nil || !on {
		t.Fatalf("Running after the wake: %v, %v", on, err)
	}

	addr := net.JoinHostPort(e.IP(t, id, "bridge"), "25565")
	t0 := time.Now()
	waitBackends(t, route, host, 5*time.Second, addr)
	routed := time.Since(t0)
	var err error
	mctest.WaitFor(t, "status ping to the woken container", 5*time.Second, func() bool {
		_, err = mctest.Ping(addr, protocol, host)
		return err == nil
	})
	t.Logf("50 wakes returned after %s; the route had the address %s later", woke.Round(time.Millisecond), routed.Round(time.Millisecond))

	sleepAndCheck(t, tg, route, name, host)
}

// wakeAtOnce calls Wake n times at once and fails on any error.
func wakeAtOnce(t *testing.T, tg *dockerwake.Target, n int, host string) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			if _, err := tg.Wake(context.Background(), wake.Request{ServerAddress: host}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("wake: %v", err)
	}
}

// sleepAndCheck: mcload saves nothing but exits on SIGTERM, well inside the
// grace; the route stays, and sleeping a stopped container is no error.
func sleepAndCheck(t *testing.T, tg *dockerwake.Target, route func(string) (discovery.Route, bool), name, host string) {
	ctx := context.Background()
	t0 := time.Now()
	if err := tg.Sleep(ctx, wake.Request{ServerAddress: host}); err != nil {
		t.Fatal(err)
	}
	slept := time.Since(t0)
	if slept >= tg.StopGrace() {
		t.Errorf("sleep took %s: the container ignored SIGTERM and was killed after the grace", slept)
	}
	if on, err := tg.Running(ctx); err != nil || on {
		t.Fatalf("Running after the sleep: %v, %v", on, err)
	}
	rt := waitBackends(t, route, host, 5*time.Second)
	if rt.Container != name {
		t.Errorf("route after the sleep: %+v", rt)
	}
	if err := tg.Sleep(ctx, wake.Request{}); err != nil {
		t.Errorf("sleeping a stopped container: %v", err)
	}
	t.Logf("sleep (SIGTERM, container exited) took %s", slept.Round(time.Millisecond))
}

func TestWakeOfMissingContainerNamesTheTarget(t *testing.T) {
	e := enginetest.NeedDocker(t)
	name := enginetest.Uniq("missing")
	tg := newTarget(t, e.Host, name, 0)
	_, err := tg.Wake(context.Background(), wake.Request{})
	if err == nil || !docker.IsNotFound(err) || !containsAll(err.Error(), "docker "+name, "wake", "404") {
		t.Fatalf("wake of a missing container: %v", err)
	}
	if _, err := tg.Running(context.Background()); !docker.IsNotFound(err) {
		t.Fatalf("running of a missing container: %v", err)
	}
	if tg.StopGrace() != dockerwake.DefaultStopGrace {
		t.Errorf("default grace %s", tg.StopGrace())
	}
}

func TestWakeCallIsBoundedByTheCallersContext(t *testing.T) {
	// A daemon that accepts and never answers: the call must end with the
	// caller's deadline, not hang.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	conns := make(chan net.Conn, 4)
	held.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	})
	t.Cleanup(func() {
		ln.Close()
		held.Wait()
		close(conns)
		for c := range conns {
			c.Close()
		}
	})
	tg := newTarget(t, "tcp://"+ln.Addr().String(), "hang", time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = tg.Wake(ctx, wake.Request{})
	if err == nil || time.Since(t0) > 2*time.Second {
		t.Fatalf("wake against a silent daemon: %v after %s", err, time.Since(t0))
	}
	t.Logf("wake against a silent daemon failed after %s: %v", time.Since(t0).Round(time.Millisecond), err)
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

func TestDockerSpecsThatCannotNameAContainerAreRejected(t *testing.T) {
	for _, s := range []wake.Spec{
		{Kind: wake.KindDocker, Name: ""},
		{Kind: wake.KindDocker, Name: "../containers/x"},
		{Kind: wake.KindDocker, Name: "a b"},
		{Kind: wake.KindDocker, Name: "ok", Timeout: -time.Second},
		{Kind: wake.KindExec, Name: "ok"},
	} {
		if _, err := dockerwake.New(nil, s); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

// Regression (issue 31): a paused container labelled for waking was "starting
// up" for ever, its start refused with 409. Wakes unpause it; concurrent ones
// (replicas, or a login racing a ping) all succeed and thaw it once.
func TestWakeUnpausesPausedContainer(t *testing.T) {
	e := enginetest.NeedDocker(t)
	name := enginetest.Uniq("paused")
	host := name + ".example.com"
	id := e.Run(t, enginetest.Container{Name: name, Labels: map[string]string{"gate.hosts": host, "gate.wake": "container"}})
	addr := net.JoinHostPort(e.IP(t, id, "bridge"), "25565")
	route := watchRoutes(t, e.Host)
	waitBackends(t, route, host, 10*time.Second, addr)

	c, err := docker.Dial(e.Host, docker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Send(t.Context(), docker.Request{Method: http.MethodPost, Path: "/containers/" + id + "/pause"}, http.StatusNoContent)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Paused, it keeps its route without a backend, and is not running.
	waitBackends(t, route, host, 5*time.Second)
	tg := newTarget(t, e.Host, name, 5*time.Second)
	if on, err := tg.Running(t.Context()); err != nil || on {
		t.Fatalf("Running of the paused container: %v, %v", on, err)
	}
	since := time.Now()
	wakeAtOnce(t, tg, 10, host)
	if on, err := tg.Running(t.Context()); err != nil || !on {
		t.Fatalf("Running after the wakes: %v, %v", on, err)
	}
	if n := e.Events(t, id, "unpause", since.Add(-time.Second), time.Now()); n != 1 {
		t.Errorf("10 concurrent wakes unpaused the container %d times, want 1", n)
	}
	waitBackends(t, route, host, 5*time.Second, addr)
	if _, err := mctest.Ping(addr, protocol, host); err != nil {
		t.Errorf("status ping to the thawed container: %v", err)
	}
}
