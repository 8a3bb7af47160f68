package docker

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
)

// protocol is the protocol version written into test status pings.
const protocol = 767

// uniq makes a name no other run on the same daemon uses.
// startSource runs a source against host until the test ends and checks that
// Run then returns nil.
func startSource(t *testing.T, host, network string, logs *mctest.Logs) *recorder {
	t.Helper()
	src, err := New(Options{
		Config:     config.DockerDiscovery{Enabled: true, Host: host, Network: network},
		Log:        logs.Logger(1),
		MinBackoff: 20 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	mctest.Run(t, "docker source", func(ctx context.Context) error { return src.Run(ctx, rec) })
	return rec
}

// waitRoute waits until the route of host has exactly want as backends.
func waitRoute(t *testing.T, rec *recorder, host string, d time.Duration, want ...string) {
	t.Helper()
	mctest.WaitFor(t, fmt.Sprintf("route %s with backends %v", host, want), d, func() bool {
		rt, ok := rec.route(host)
		return ok && slices.Equal(addrs(rt), want)
	})
}

// ping does a status exchange with the backend, retrying while its process
// is still starting: a container is running, and so a route's backend, before
// its server listens (a health check is what tells the two apart).
func ping(t *testing.T, addr, host string) {
	t.Helper()
	var err error
	mctest.WaitFor(t, "status ping to "+addr, 5*time.Second, func() bool {
		_, err = mctest.Ping(addr, protocol, host)
		return err == nil
	})
}

func TestContainersOfOneHostAreOneBalancedRoute(t *testing.T) {
	e := enginetest.NeedDocker(t)
	host := enginetest.Uniq("lobby") + ".example.com"
	var ids, want []string
	for i := 1; i <= 3; i++ {
		id := e.Run(t, enginetest.Container{Name: enginetest.Uniq(fmt.Sprintf("lobby-%d", i)), Labels: map[string]string{
			"gate.hosts": host, "gate.strategy": "least-connections", "gate.cachePingTTL": "5s",
			LabelComposeProject: enginetest.Uniq("lobby"),
		}})
		ids = append(ids, id)
		want = append(want, net.JoinHostPort(e.IP(t, id, "bridge"), "25565"))
	}
	logs := &mctest.Logs{}
	rec := startSource(t, e.Host, "", logs)
	waitRoute(t, rec, host, 10*time.Second, want...)

	rt, _ := rec.route(host)
	if wantOrigin := "docker " + enginetest.Uniq("lobby-1") + " (+2)"; rt.Origin != wantOrigin {
		t.Errorf("route origin %q, want %q", rt.Origin, wantOrigin)
	}
	for i, b := range rt.Backends {
		if wantOrigin := "docker " + enginetest.Uniq(fmt.Sprintf("lobby-%d", i+1)); b.Origin != wantOrigin {
			t.Errorf("backend %d origin %q, want %q", i, b.Origin, wantOrigin)
		}
		ping(t, b.Addr, host)
	}
	if rt.Settings["strategy"] != "least-connections" || rt.Settings["cachePingTTL"] != "5s" || len(rt.Settings) != 2 {
		t.Errorf("settings %v", rt.Settings)
	}

	t0 := time.Now()
	e.Stop(t, ids[1])
	returned := time.Now()
	waitRoute(t, rec, host, time.Second, want[0], want[2])
	t.Logf("stop: route without the container %s after the stop call began, %s after it returned", since(t0), since(returned))

	t0 = time.Now()
	e.Start(t, ids[1])
	returned = time.Now()
	waitRoute(t, rec, host, time.Second, want...)
	t.Logf("start: route with the container again %s after the start call began, %s after it returned", since(t0), since(returned))
	if n := logs.Count("warning"); n != 0 {
		t.Errorf("warnings: %q", logs.Find("warning"))
	}
}

func TestContainerOnTwoNetworksWithoutLabelIsSkippedOnce(t *testing.T) {
	e := enginetest.NeedDocker(t)
	netName := enginetest.Uniq("back")
	netID := e.Network(t, netName)
	skipped := enginetest.Uniq("multi") + ".example.com"
	picked := enginetest.Uniq("picked") + ".example.com"
	e.Run(t, enginetest.Container{Name: enginetest.Uniq("multi"), Labels: map[string]string{"gate.hosts": skipped}, Networks: []string{netID}})
	pickedID := e.Run(t, enginetest.Container{Name: enginetest.Uniq("picked"), Labels: map[string]string{"gate.hosts": picked, "gate.network": netName}, Networks: []string{netID}})
	addr := net.JoinHostPort(e.IP(t, pickedID, netName), "25565")

	logs := &mctest.Logs{}
	rec := startSource(t, e.Host, "", logs)
	waitRoute(t, rec, picked, 10*time.Second, addr)
	ping(t, addr, picked)

	// More events, and so more lists, must not repeat the warning.
	e.Stop(t, pickedID)
	mctest.WaitFor(t, "route gone", time.Second, func() bool { _, ok := rec.route(picked); return !ok })
	e.Start(t, pickedID)
	waitRoute(t, rec, picked, time.Second, addr)
	if _, ok := rec.route(skipped); ok {
		t.Errorf("a container on two networks without a network label became a route")
	}
	if got := logs.Find("several networks"); len(got) != 1 || !strings.Contains(got[0], enginetest.Uniq("multi")) {
		t.Errorf("want one warning naming the container, got %q", got)
	}
}

func TestMCRouterLabelsAndPortLabel(t *testing.T) {
	e := enginetest.NeedDocker(t)
	mcHost := enginetest.Uniq("mc") + ".example.com"
	portHost := enginetest.Uniq("port") + ".example.com"
	mcID := e.Run(t, enginetest.Container{Name: enginetest.Uniq("mc"), Listen: "0.0.0.0:25566", Labels: map[string]string{"mc-router.host": mcHost, "mc-router.port": "25566"}})
	portID := e.Run(t, enginetest.Container{Name: enginetest.Uniq("port"), Listen: "0.0.0.0:25570", Labels: map[string]string{"gate.hosts": portHost, "gate.port": "25570", "mc-router.port": "1"}})
	defID := e.Run(t, enginetest.Container{Name: enginetest.Uniq("default"), Labels: map[string]string{"mc-router.default": "true"}})
	mcAddr := net.JoinHostPort(e.IP(t, mcID, "bridge"), "25566")
	portAddr := net.JoinHostPort(e.IP(t, portID, "bridge"), "25570")
	defAddr := net.JoinHostPort(e.IP(t, defID, "bridge"), "25565")

	rec := startSource(t, e.Host, "", &mctest.Logs{})
	waitRoute(t, rec, mcHost, 10*time.Second, mcAddr)
	waitRoute(t, rec, portHost, time.Second, portAddr)
	ping(t, mcAddr, mcHost)
	ping(t, portAddr, portHost)

	rec.mu.Lock()
	routes := rec.replaces[len(rec.replaces)-1]
	rec.mu.Unlock()
	def := routes[len(routes)-1]
	if !def.Default || !slices.Equal(def.Hosts, []string{"*"}) || def.Origin != "docker "+enginetest.Uniq("default") || !slices.Equal(addrs(def), []string{defAddr}) {
		t.Errorf("the catch-all is not the last route as wanted: %+v", def)
	}
	ping(t, defAddr, "anything.example.com")
}

// TestLostDaemonIsStaleOnceAndConvergesAfterReconnect puts a forwarder between
// the source and the daemon's socket, so the test can take the daemon away and
// bring it back without touching the daemon other tests share.
func TestLostDaemonIsStaleOnceAndConvergesAfterReconnect(t *testing.T) {
	e := enginetest.NeedDocker(t)
	ep := e.Endpoint()
	if ep.Network != "unix" {
		t.Skipf("the forwarder needs a unix socket daemon, have %s", e.Host)
	}
	fwd := mctest.NewForwarder(t, "unix", ep.Addr)
	host := enginetest.Uniq("outage") + ".example.com"
	labels := map[string]string{"gate.hosts": host, LabelComposeProject: enginetest.Uniq("outage")}
	first := e.Run(t, enginetest.Container{Name: enginetest.Uniq("outage-1"), Labels: labels})
	firstAddr := net.JoinHostPort(e.IP(t, first, "bridge"), "25565")

	logs := &mctest.Logs{}
	rec := startSource(t, "unix://"+fwd.Addr(), "", logs)
	waitRoute(t, rec, host, 10*time.Second, firstAddr)
	before, _ := rec.counts()

	fwd.Cut()
	mctest.WaitFor(t, "Stale", time.Second, func() bool { _, s := rec.counts(); return s > 0 })
	second := e.Run(t, enginetest.Container{Name: enginetest.Uniq("outage-2"), Labels: labels})
	secondAddr := net.JoinHostPort(e.IP(t, second, "bridge"), "25565")
	e.Stop(t, first)
	mctest.WaitFor(t, "three refused reconnects", 5*time.Second, func() bool { return fwd.Refused() >= 3 })
	if r, s := rec.counts(); r != before || s != 1 {
		t.Fatalf("during the outage: %d Replace (want %d, none new) and %d Stale (want 1)", r, before, s)
	}

	fwd.Restore()
	t0 := time.Now()
	waitRoute(t, rec, host, 5*time.Second, secondAddr)
	t.Logf("converged %s after the daemon came back (%d reconnects refused)", since(t0), fwd.Refused())
	rec.mu.Lock()
	for i, rs := range rec.replaces {
		if _, ok := find(rs, host); !ok {
			t.Errorf("Replace %d lacks the route: an outage emptied it", i)
		}
	}
	rec.mu.Unlock()
	if _, s := rec.counts(); s != 1 {
		t.Errorf("%d Stale for one outage, want 1", s)
	}
	if lost, back := logs.Count("lost the docker daemon"), logs.Count("docker daemon is back"); lost != 1 || back != 1 {
		t.Errorf("logged the outage %d times and the recovery %d times, want once each", lost, back)
	}
}

func TestHealthCheckDecidesWhichContainersAreBackends(t *testing.T) {
	e := enginetest.NeedDocker(t)
	host := enginetest.Uniq("health") + ".example.com"
	labels := map[string]string{"gate.hosts": host, LabelComposeProject: enginetest.Uniq("health")}
	rec := startSource(t, e.Host, "", &mctest.Logs{})
	// mcload's setup mode exits 0 once it has made its connection; an unknown
	// mode exits 2.
	good := e.Run(t, enginetest.Container{Name: enginetest.Uniq("health-good"), Labels: labels, Health: []string{"/mcload", "setup", "-addr", "127.0.0.1:25565", "-n", "1", "-warmup", "0", "-sources", "1"}})
	bad := e.Run(t, enginetest.Container{Name: enginetest.Uniq("health-bad"), Labels: labels, Health: []string{"/mcload", "unwell"}})
	goodAddr := net.JoinHostPort(e.IP(t, good, "bridge"), "25565")
	badAddr := net.JoinHostPort(e.IP(t, bad, "bridge"), "25565")

	waitRoute(t, rec, host, 10*time.Second, goodAddr)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, rs := range rec.replaces {
		if rt, ok := find(rs, host); ok && slices.Contains(addrs(rt), badAddr) {
			t.Errorf("Replace %d has the container whose health check fails: %+v", i, rt)
		}
	}
}

// A daemon that is not there at start is an outage like any other: the source
// says it is stale once, publishes nothing, keeps trying, and stops cleanly.
func TestDaemonAbsentAtStartIsStaleOnceAndPublishesNothing(t *testing.T) {
	logs := &mctest.Logs{}
	rec := startSource(t, "unix://"+filepath.Join(t.TempDir(), "absent.sock"), "", logs)
	mctest.WaitFor(t, "Stale", 5*time.Second, func() bool { _, s := rec.counts(); return s == 1 })
	mctest.WaitFor(t, "two retries", 5*time.Second, func() bool { return logs.Count("still unreachable") >= 2 })
	if r, s := rec.counts(); r != 0 || s != 1 {
		t.Errorf("%d Replace and %d Stale, want 0 and 1", r, s)
	}
}

// The daemon announces a pause (and an unpause) before its container list
// shows it: the event's state wins until the list agrees.
func TestPauseEventWinsOverTheListUntilItAgrees(t *testing.T) {
	p := &pauses{m: map[string]bool{}}
	ev := func(action, id string) engine.Event {
		var e engine.Event
		e.Type, e.Action, e.Actor.ID = "container", action, id
		return e
	}
	p.note(ev("pause", "a"))
	p.note(ev("unpause", "b"))
	p.note(ev("pause", "gone"))
	p.note(ev("start", "c"))
	list := []engine.Container{{ID: "a", State: "running"}, {ID: "b", State: "paused"}, {ID: "c", State: "running"}}
	p.apply(list)
	if got := []string{list[0].State, list[1].State, list[2].State}; !slices.Equal(got, []string{"paused", "running", "running"}) {
		t.Fatalf("states after a stale list: %v", got)
	}
	list = []engine.Container{{ID: "a", State: "paused"}, {ID: "b", State: "exited"}}
	p.apply(list)
	if list[0].State != "paused" || list[1].State != "exited" || len(p.m) != 0 {
		t.Fatalf("once the list agrees (or the container stopped) the events are forgotten: %+v, %v", list, p.m)
	}
}
