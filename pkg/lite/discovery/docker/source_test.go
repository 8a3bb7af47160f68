package docker

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// protocol is the protocol version written into test status pings.
const protocol = 767

// uniq makes a name no other run on the same daemon uses.
func uniq(s string) string { return fmt.Sprintf("gt%d-%s", os.Getpid(), s) }

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
	e := needEngine(t)
	host := uniq("lobby") + ".example.com"
	var ids, want []string
	for i := 1; i <= 3; i++ {
		id := e.run(t, spec{name: uniq(fmt.Sprintf("lobby-%d", i)), labels: map[string]string{
			"gate.hosts": host, "gate.strategy": "least-connections", "gate.cachePingTTL": "5s",
		}})
		ids = append(ids, id)
		want = append(want, net.JoinHostPort(e.ip(t, id, "bridge"), "25565"))
	}
	logs := &mctest.Logs{}
	rec := startSource(t, e.host, "", logs)
	waitRoute(t, rec, host, 10*time.Second, want...)

	rt, _ := rec.route(host)
	if wantOrigin := "docker " + uniq("lobby-1") + " (+2)"; rt.Origin != wantOrigin {
		t.Errorf("route origin %q, want %q", rt.Origin, wantOrigin)
	}
	for i, b := range rt.Backends {
		if wantOrigin := "docker " + uniq(fmt.Sprintf("lobby-%d", i+1)); b.Origin != wantOrigin {
			t.Errorf("backend %d origin %q, want %q", i, b.Origin, wantOrigin)
		}
		ping(t, b.Addr, host)
	}
	if rt.Settings["strategy"] != "least-connections" || rt.Settings["cachePingTTL"] != "5s" || len(rt.Settings) != 2 {
		t.Errorf("settings %v", rt.Settings)
	}

	t0 := time.Now()
	e.stop(t, ids[1])
	returned := time.Now()
	waitRoute(t, rec, host, time.Second, want[0], want[2])
	t.Logf("stop: route without the container %s after the stop call began, %s after it returned", since(t0), since(returned))

	t0 = time.Now()
	e.start(t, ids[1])
	returned = time.Now()
	waitRoute(t, rec, host, time.Second, want...)
	t.Logf("start: route with the container again %s after the start call began, %s after it returned", since(t0), since(returned))
	if n := logs.Count("warning"); n != 0 {
		t.Errorf("warnings: %q", logs.Find("warning"))
	}
}

func TestContainerOnTwoNetworksWithoutLabelIsSkippedOnce(t *testing.T) {
	e := needEngine(t)
	netName := uniq("back")
	netID := e.network(t, netName)
	skipped := uniq("multi") + ".example.com"
	picked := uniq("picked") + ".example.com"
	e.run(t, spec{name: uniq("multi"), labels: map[string]string{"gate.hosts": skipped}, networks: []string{netID}})
	pickedID := e.run(t, spec{name: uniq("picked"), labels: map[string]string{"gate.hosts": picked, "gate.network": netName}, networks: []string{netID}})
	addr := net.JoinHostPort(e.ip(t, pickedID, netName), "25565")

	logs := &mctest.Logs{}
	rec := startSource(t, e.host, "", logs)
	waitRoute(t, rec, picked, 10*time.Second, addr)
	ping(t, addr, picked)

	// More events, and so more lists, must not repeat the warning.
	e.stop(t, pickedID)
	mctest.WaitFor(t, "route gone", time.Second, func() bool { _, ok := rec.route(picked); return !ok })
	e.start(t, pickedID)
	waitRoute(t, rec, picked, time.Second, addr)
	if _, ok := rec.route(skipped); ok {
		t.Errorf("a container on two networks without a network label became a route")
	}
	if got := logs.Find("several networks"); len(got) != 1 || !strings.Contains(got[0], uniq("multi")) {
		t.Errorf("want one warning naming the container, got %q", got)
	}
}

func TestMCRouterLabelsAndPortLabel(t *testing.T) {
	e := needEngine(t)
	mcHost := uniq("mc") + ".example.com"
	portHost := uniq("port") + ".example.com"
	mcID := e.run(t, spec{name: uniq("mc"), listen: "0.0.0.0:25566", labels: map[string]string{"mc-router.host": mcHost, "mc-router.port": "25566"}})
	portID := e.run(t, spec{name: uniq("port"), listen: "0.0.0.0:25570", labels: map[string]string{"gate.hosts": portHost, "gate.port": "25570", "mc-router.port": "1"}})
	defID := e.run(t, spec{name: uniq("default"), labels: map[string]string{"mc-router.default": "true"}})
	mcAddr := net.JoinHostPort(e.ip(t, mcID, "bridge"), "25566")
	portAddr := net.JoinHostPort(e.ip(t, portID, "bridge"), "25570")
	defAddr := net.JoinHostPort(e.ip(t, defID, "bridge"), "25565")

	rec := startSource(t, e.host, "", &mctest.Logs{})
	waitRoute(t, rec, mcHost, 10*time.Second, mcAddr)
	waitRoute(t, rec, portHost, time.Second, portAddr)
	ping(t, mcAddr, mcHost)
	ping(t, portAddr, portHost)

	rec.mu.Lock()
	routes := rec.replaces[len(rec.replaces)-1]
	rec.mu.Unlock()
	def := routes[len(routes)-1]
	if !def.Default || !slices.Equal(def.Hosts, []string{"*"}) || def.Origin != "docker "+uniq("default") || !slices.Equal(addrs(def), []string{defAddr}) {
		t.Errorf("the catch-all is not the last route as wanted: %+v", def)
	}
	ping(t, defAddr, "anything.example.com")
}

// TestLostDaemonIsStaleOnceAndConvergesAfterReconnect puts a forwarder between
// the source and the daemon's socket, so the test can take the daemon away and
// bring it back without touching the daemon other tests share.
func TestLostDaemonIsStaleOnceAndConvergesAfterReconnect(t *testing.T) {
	e := needEngine(t)
	ep, err := parseHost(e.host)
	if err != nil || ep.network != "unix" {
		t.Skipf("the forwarder needs a unix socket daemon, have %s", e.host)
	}
	fwd := mctest.NewForwarder(t, "unix", ep.addr)
	host := uniq("outage") + ".example.com"
	labels := map[string]string{"gate.hosts": host}
	first := e.run(t, spec{name: uniq("outage-1"), labels: labels})
	firstAddr := net.JoinHostPort(e.ip(t, first, "bridge"), "25565")

	logs := &mctest.Logs{}
	rec := startSource(t, "unix://"+fwd.Addr(), "", logs)
	waitRoute(t, rec, host, 10*time.Second, firstAddr)
	before, _ := rec.counts()

	fwd.Cut()
	mctest.WaitFor(t, "Stale", time.Second, func() bool { _, s := rec.counts(); return s > 0 })
	second := e.run(t, spec{name: uniq("outage-2"), labels: labels})
	secondAddr := net.JoinHostPort(e.ip(t, second, "bridge"), "25565")
	e.stop(t, first)
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
	e := needEngine(t)
	host := uniq("health") + ".example.com"
	labels := map[string]string{"gate.hosts": host}
	rec := startSource(t, e.host, "", &mctest.Logs{})
	// mcload's setup mode exits 0 once it has made its connection; an unknown
	// mode exits 2.
	good := e.run(t, spec{name: uniq("health-good"), labels: labels, health: []string{"/mcload", "setup", "-addr", "127.0.0.1:25565", "-n", "1", "-warmup", "0", "-sources", "1"}})
	bad := e.run(t, spec{name: uniq("health-bad"), labels: labels, health: []string{"/mcload", "unwell"}})
	goodAddr := net.JoinHostPort(e.ip(t, good, "bridge"), "25565")
	badAddr := net.JoinHostPort(e.ip(t, bad, "bridge"), "25565")

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
