package kubernetes_test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// The auto-scale cases: mc-router scales the StatefulSet of the Service
// between 0 and 1 replicas; here the Service's annotations become the
// route's wake keys. No controller runs: when the StatefulSet is scaled up,
// the test writes the EndpointSlice its pod would bring.

const scaledHost = "mc.example.com"

// scaled is the Service "mc" for scaledHost with the auto-scale annotations
// ann (autoScaleUp true unless ann says otherwise), and no endpoints yet.
func scaled(t *testing.T, w *mcWorld, p *mcProxy, ann map[string]string) {
	t.Helper()
	all := map[string]string{annExternalServerName: scaledHost, annAutoScaleUp: "true"}
	for k, v := range ann {
		all[k] = v
	}
	w.apply(t, p.ns, svc(all))
}

// route waits for the Service's route to be in force and returns it.
func route(t *testing.T, p *mcProxy, ready func(config.Route) bool) config.Route {
	t.Helper()
	var got config.Route
	mctest.WaitFor(t, "the Service's route in force", 10*time.Second, func() bool {
		for _, r := range p.Config().Lite.Routes {
			if r.Origin == "kubernetes "+p.ns+"/mc" && ready(r) {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

func hasWake(r config.Route) bool { return r.Wake != nil }

// asleep waits for the proxy to learn that the route's target is asleep: a
// new target is taken as awake until its engine says it runs no replica.
func asleep(t *testing.T, p *mcProxy) {
	t.Helper()
	mctest.WaitFor(t, "the target known asleep", 10*time.Second, func() bool {
		states := p.Wake().States()
		return len(states) == 1 && states[0].Phase == "asleep"
	})
}

// TestK8s_autoScaleWithoutProxy, TestBuildK8sWaker_WaitsForEndpoint: a login
// wakes the StatefulSet at 0 replicas, is held while its pod starts, and
// joins it.
func loginWakesStatefulSet(t *testing.T, w *mcWorld, p *mcProxy) {
	w.statefulSet(t, p.ns, "mc", 0)
	scaled(t, w, p, map[string]string{annAutoScaleDown: "true"})
	route(t, p, hasWake)
	asleep(t, p)
	h := w.send(t, p, scaledHost)
	mctest.WaitFor(t, "the StatefulSet scaled to 1", 10*time.Second, func() bool { return w.replicas(t, p.ns, "mc") == 1 })
	w.endpoints(t, p.ns, "mc", w.host("pod"), map[string]int32{"minecraft": w.port("pod")})
	if got := w.result(t, h); got != "pod" {
		t.Fatalf("the held player got %q, want to join pod", got)
	}
}

// TestK8s_proxyServerNameScaleEndpoint: players go to the proxy named, and
// what is woken is still the Service's own StatefulSet.
func proxyScalesOwnStatefulSet(t *testing.T, w *mcWorld, p *mcProxy) {
	w.statefulSet(t, p.ns, "mc", 0)
	scaled(t, w, p, map[string]string{annProxyServerName: w.backends["proxy"].Addr()})
	route(t, p, hasWake)
	asleep(t, p)
	if got := w.result(t, w.send(t, p, scaledHost)); got != "proxy" {
		t.Fatalf("player got %q, want the proxy", got)
	}
	if n := w.replicas(t, p.ns, "mc"); n != 1 {
		t.Fatalf("the Service's StatefulSet has %d replicas, want 1", n)
	}
}

// TestBuildK8sWaker_NilScaleUp: autoScaleUp false wakes nothing; with no
// endpoints the player is told the server is unavailable.
func scaleUpOffLeavesStatefulSet(t *testing.T, w *mcWorld, p *mcProxy) {
	w.statefulSet(t, p.ns, "mc", 0)
	scaled(t, w, p, map[string]string{annAutoScaleUp: "false"})
	w.expect(t, p, scaledHost, unavailable)
	if r := route(t, p, func(config.Route) bool { return true }); r.Wake != nil {
		t.Errorf("autoScaleUp false gave the route wake %+v", r.Wake)
	}
	if n := w.replicas(t, p.ns, "mc"); n != 0 {
		t.Fatalf("StatefulSet has %d replicas, want 0", n)
	}
}

// TestBuildK8sWaker_ScaleUpError: the scale-up fails (no StatefulSet of that
// name): the player is told at once that the server is starting.
func scaleUpWithoutStatefulSet(t *testing.T, w *mcWorld, p *mcProxy) {
	scaled(t, w, p, nil)
	route(t, p, hasWake)
	start := time.Now()
	if got := w.result(t, w.send(t, p, scaledHost)); got != starting {
		t.Fatalf("player got %q, want the starting text", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("a failed wake held the player %v", d)
	}
}

// TestBuildK8sWaker_ContextCancellation: a server that never comes up ends
// the hold after autoScaleWaitTimeout, with the starting text.
func waitTimeoutEndsHold(t *testing.T, w *mcWorld, p *mcProxy) {
	w.statefulSet(t, p.ns, "mc", 0)
	scaled(t, w, p, map[string]string{annWaitTimeout: "2s"})
	route(t, p, func(r config.Route) bool { return r.Wake != nil && r.WakeSettings.HoldFor == 2*time.Second })
	asleep(t, p)
	start := time.Now()
	if got := w.result(t, w.send(t, p, scaledHost)); got != starting {
		t.Fatalf("player got %q, want the starting text", got)
	}
	if d := time.Since(start); d < 2*time.Second || d > 10*time.Second {
		t.Fatalf("held for %v, want autoScaleWaitTimeout's 2s", d)
	}
}

// TestK8s_motdAnnotations: a ping of the sleeping server gets the asleep
// MOTD and wakes nothing; while a login wakes it, a ping gets the loading
// MOTD; then the player joins.
func motdAnnotations(t *testing.T, w *mcWorld, p *mcProxy) {
	w.statefulSet(t, p.ns, "mc", 0)
	scaled(t, w, p, map[string]string{annAsleepMOTD: "Server is sleeping", annLoadingMOTD: "Server is starting"})
	route(t, p, hasWake)
	pingShows(t, p, "Server is sleeping")
	if n := w.replicas(t, p.ns, "mc"); n != 0 {
		t.Fatalf("a ping scaled the StatefulSet to %d", n)
	}
	h := w.send(t, p, scaledHost)
	mctest.WaitFor(t, "the StatefulSet scaled to 1", 10*time.Second, func() bool { return w.replicas(t, p.ns, "mc") == 1 })
	pingShows(t, p, "Server is starting")
	w.endpoints(t, p.ns, "mc", w.host("pod"), map[string]int32{"minecraft": w.port("pod")})
	if got := w.result(t, h); got != "pod" {
		t.Fatalf("the held player got %q, want to join pod", got)
	}
}

// pingShows waits for a ping of scaledHost to show the description motd.
func pingShows(t *testing.T, p *mcProxy, motd string) {
	t.Helper()
	var body string
	mctest.WaitFor(t, "a ping showing "+motd, 10*time.Second, func() bool {
		body, _ = mctest.Ping(p.addr, mcProtocol, scaledHost)
		return strings.Contains(body, strconv.Quote(motd))
	})
}

// README: autoScaleDown false keeps the server up once woken.
func scaleDownOffNeverSleeps(t *testing.T, w *mcWorld, p *mcProxy) {
	w.statefulSet(t, p.ns, "mc", 0)
	scaled(t, w, p, map[string]string{annAutoScaleDown: "false"})
	if r := route(t, p, hasWake); r.WakeSettings.IdleAfter != 0 {
		t.Fatalf("idleAfter %v, want never (0)", r.WakeSettings.IdleAfter)
	}
}

// README: a wait past the client's own 30 s timeout would show the client's
// timeout, not why; the login is held for the default instead, with one
// warning naming the annotation.
func longWaitTimeoutIsCapped(t *testing.T, w *mcWorld, p *mcProxy) {
	w.statefulSet(t, p.ns, "mc", 0)
	scaled(t, w, p, map[string]string{annWaitTimeout: "90s"})
	if r := route(t, p, hasWake); r.WakeSettings.HoldFor != config.DefaultHoldFor {
		t.Fatalf("holdFor %v, want %v", r.WakeSettings.HoldFor, config.DefaultHoldFor)
	}
	if n := p.logs.Count(annWaitTimeout); n != 1 {
		t.Fatalf("%d warnings name %s, want 1", n, annWaitTimeout)
	}
}

// An ExternalName on loopback would have the proxy dial its own host (an
// admin API, RCON): the route has no backend and nothing is dialled there.
func loopbackExternalNameRefused(t *testing.T, w *mcWorld, p *mcProxy) {
	lo := mctest.NewBackend(t, mctest.Options{})
	_, port, _ := net.SplitHostPort(lo.Addr())
	n, _ := strconv.Atoi(port)
	s := svc(map[string]string{annExternalServerName: "a.com"}, tcpPort("minecraft", int32(n)))
	s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "127.0.0.1"
	w.apply(t, p.ns, s)
	w.expect(t, p, "a.com", unavailable)
	if lo.Accepted() != 0 {
		t.Fatalf("the loopback service was dialled %d times", lo.Accepted())
	}
	if p.logs.Count("loopback") != 1 {
		t.Fatalf("no single warning about the loopback ExternalName: %q", p.logs.Find("mc"))
	}
}
