package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/admin"
	"go.minekube.com/gate/pkg/lite/wake"
)

// These tests wake a Deployment through the whole proxy against the real
// kube-apiserver. Nothing there starts pods, so the test plays the controller:
// when the scale goes to 1 it starts a real Minecraft server (npm's
// minecraft-protocol) after a delay and writes the EndpointSlice; at 0 it
// stops the server and empties the slice. Players are real-client bots.
// Figures issue 21 asks for are logged as "figure:" lines.

// controller plays the Deployment controller and kubelet for one Deployment.
type controller struct {
	t       *testing.T
	w       *kubeWorld
	name    string
	modules string
	addr    string // the server's address on lo
	port    int
	fav     string
	hide    bool

	mu       sync.Mutex
	delay    time.Duration // from the scale write to the server listening
	never    bool          // the server never starts
	replicas int32
	ups      []time.Time // scale writes 0 -> n, as the watch saw them
	downs    []time.Time // n -> 0
	srv      *mctest.NodeServer
	gen      int // bumps on every change, so a late start of an old one is dropped
}

func newController(t *testing.T, w *kubeWorld, name string, replicas int32, hide bool) *controller {
	t.Helper()
	c := &controller{t: t, w: w, name: name, modules: mctest.NodeModules(t), addr: w.addrs[len(w.addrs)-1],
		fav: mctest.Favicon(21), hide: hide, replicas: replicas}
	c.port = freePortOn(t, c.addr)
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "minecraft", Image: "minecraft"}}}}},
	}
	ctx := context.Background()
	if _, err := w.cs.AppsV1().Deployments(w.ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.writeSlice(false)
	wctx, cancel := context.WithCancel(ctx)
	wi, err := w.cs.AppsV1().Deployments(w.ns).Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range wi.ResultChan() {
			if d, ok := ev.Object.(*appsv1.Deployment); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				c.observe(*d.Spec.Replicas)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		wi.Stop()
		<-done
		c.mu.Lock()
		defer c.mu.Unlock()
		c.gen++
		if c.srv != nil {
			c.srv.Stop()
		}
	})
	return c
}

func freePortOn(t *testing.T, ip string) int {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// observe is the controller's reaction to the Deployment's replicas.
func (c *controller) observe(replicas int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.replicas
	c.replicas = replicas
	switch {
	case prev == 0 && replicas > 0:
		c.ups = append(c.ups, time.Now())
		c.gen++
		if c.never {
			return
		}
		gen, delay := c.gen, c.delay
		time.AfterFunc(delay, func() { c.start(gen) })
	case prev > 0 && replicas == 0:
		c.downs = append(c.downs, time.Now())
		c.gen++
		if c.srv != nil {
			c.srv.Stop()
			c.srv = nil
		}
		c.writeSlice(false)
	}
}

// start starts the server and publishes it, unless the scale moved since.
func (c *controller) start(gen int) {
	srv, err := mctest.LaunchNodeServer(c.modules, mctest.NodeServerOptions{Host: c.addr, Port: c.port,
		MOTD: "the real lobby", Favicon: c.fav, HidePlayers: c.hide})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.t.Errorf("controller: %v", err)
		return
	}
	if gen != c.gen {
		srv.Stop()
		return
	}
	c.srv = srv
	c.writeSlice(true)
}

// writeSlice publishes the server as the Service's one endpoint, or none.
func (c *controller) writeSlice(up bool) {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: c.name + "-1", Namespace: c.w.ns,
			Labels: map[string]string{discoveryv1.LabelServiceName: c.name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("minecraft"), Port: ptr(int32(c.port))}},
	}
	if up {
		es.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{c.addr},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}}
	}
	ctx := context.Background()
	api := c.w.cs.DiscoveryV1().EndpointSlices(c.w.ns)
	_, err := api.Update(ctx, es, metav1.UpdateOptions{})
	if err != nil {
		_, err = api.Create(ctx, es, metav1.CreateOptions{})
	}
	if err != nil {
		c.t.Errorf("controller: endpoint slice: %v", err)
	}
}

func (c *controller) set(delay time.Duration, never bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delay, c.never = delay, never
}

// counts returns how many scale-ups and scale-downs the API server saw.
func (c *controller) counts() (ups, downs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ups), len(c.downs)
}

func (c *controller) lastDown() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.downs) == 0 {
		return time.Time{}
	}
	return c.downs[len(c.downs)-1]
}

func (c *controller) joins() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.srv == nil {
		return 0
	}
	return len(c.srv.Joins())
}

// wakeGate starts one replica for the wake tests, whose log the test prints
// if it fails.
func (w *kubeWorld) wakeGate(extra string) *running {
	w.t.Helper()
	var g *running
	w.t.Cleanup(func() {
		if w.t.Failed() && g != nil {
			w.t.Logf("gate's log:\n%s", g.log.String())
		}
	})
	g = w.gateWith(w.kubeconfig, extra)
	return g
}

func wakeStates(t *testing.T, g *running) []wake.State {
	t.Helper()
	_, body := g.get(admin.PathWake)
	var ss []wake.State
	if err := json.Unmarshal([]byte(body), &ss); err != nil {
		t.Fatalf("wake states: %v\n%s", err, body)
	}
	return ss
}

func phase(t *testing.T, g *running) string {
	t.Helper()
	for _, s := range wakeStates(t, g) {
		return s.Phase
	}
	return ""
}

// bots logs count real clients in at once through g and tallies outcomes.
func bots(t *testing.T, g *running, host string, count int, stay time.Duration, prefix string) (joined int, kicked []mctest.BotResult, slowest time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second+stay)
	defer cancel()
	res, err := mctest.Bots{Addr: g.proxy, Host: host, Count: count, Stay: stay, NamePrefix: prefix}.Run(ctx, mctest.NodeModules(t))
	if err != nil {
		t.Fatalf("bots: %v (%d outcomes)", err, len(res))
	}
	for _, r := range res {
		slowest = max(slowest, r.After)
		switch r.Outcome {
		case "joined":
			joined++
		default:
			kicked = append(kicked, r)
		}
	}
	return joined, kicked, slowest
}

func TestWakeDeploymentThroughTheProxy(t *testing.T) {
	w := newKubeWorld(t, 0)
	const host = "lobby.example.com"
	const motd = "The lobby sleeps: join to wake it"
	c := newController(t, w, "lobby", 1, false)
	c.start(c.gen) // replicas 1 from the start: the server runs
	w.service("lobby", map[string]string{
		"gate.minekube.com/hosts":      host,
		"gate.minekube.com/port":       strconv.Itoa(c.port),
		"gate.minekube.com/wake":       "deployment/lobby",
		"gate.minekube.com/idleAfter":  "4s",
		"gate.minekube.com/asleepMotd": motd,
	})
	g := w.wakeGate(os.Getenv("GATETEST_WAKE_EXTRA"))

	// Awake: a ping is the real server's answer, which the proxy keeps as the
	// route's last-known-good status.
	until(t, "the real server's status through the proxy", 20*time.Second, func() bool {
		body, err := mctest.Ping(g.proxy, 765, host)
		return err == nil && strings.Contains(body, "the real lobby") && strings.Contains(body, c.fav)
	})

	// Nobody joins: after idleAfter the proxy scales it to 0, once.
	until(t, "the idle lobby to be put to sleep", 30*time.Second, func() bool { _, d := c.counts(); return d == 1 })
	until(t, "phase asleep", 10*time.Second, func() bool { return phase(t, g) == "asleep" })

	// 1,000 pings: answered asleep with the real favicon, nothing woken.
	withFavicon := 0
	for i := range 1000 {
		body, err := mctest.Ping(g.proxy, 765, host)
		if err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
		if !strings.Contains(body, motd) {
			t.Fatalf("ping %d: no asleep MOTD: %.300s", i, body)
		}
		if strings.Contains(body, c.fav) {
			withFavicon++
		}
	}
	ups, _ := c.counts()
	t.Logf("figure: 1000 pings to the sleeping route: %d scale-ups, %d of 1000 with the asleep MOTD and the last-known-good favicon", ups, withFavicon)
	if ups != 0 || withFavicon != 1000 {
		t.Fatalf("pings woke it %d times; %d of 1000 carried the favicon", ups, withFavicon)
	}

	// 50 real clients at once, a server that takes 8 s to start: one scale
	// call, all 50 join.
	c.set(8*time.Second, false)
	joined, kicked, slowest := bots(t, g, host, 50, 3*time.Second, "wake")
	ups, _ = c.counts()
	t.Logf("figure: 50 concurrent logins, 8 s start: %d scale call(s), %d of 50 joined, slowest join %v", ups, joined, slowest.Round(time.Millisecond))
	if ups != 1 || joined != 50 {
		t.Fatalf("%d scale calls, %d of 50 joined; first refusals: %v", ups, joined, kicked[:min(3, len(kicked))])
	}
	if n := c.joins(); n != 50 {
		t.Fatalf("the server saw %d joins, want 50", n)
	}

	// They leave; idleAfter later it sleeps again, once.
	until(t, "the second sleep", 40*time.Second, func() bool { _, d := c.counts(); return d == 2 })

	// A server that never starts: every player gets the starting Disconnect
	// before the client's own 30 s timeout.
	c.set(0, true)
	joined, kicked, slowest = bots(t, g, host, 50, 0, "never")
	t.Logf("figure: 50 concurrent logins, server never starts: %d joined, %d got a Disconnect, slowest answer %v", joined, len(kicked), slowest.Round(time.Millisecond))
	if joined != 0 || len(kicked) != 50 || slowest >= 26*time.Second {
		t.Fatalf("joined %d, answered %d, slowest %v", joined, len(kicked), slowest)
	}
	for _, k := range kicked {
		if k.Outcome != "kicked" || !strings.Contains(k.Reason, host) {
			t.Fatalf("bot %s: %s %q %s: want a Disconnect naming %s", k.Bot, k.Outcome, k.Reason, k.Error, host)
		}
	}
	t.Logf("figure: the starting Disconnect reads %q", kicked[0].Reason)
}

// Two replicas share one Deployment; players are on B only and the server
// hides its player count, so only the Lease can tell A that B holds them.
func TestWakeTwoReplicasAgreeBeforeSleeping(t *testing.T) {
	w := newKubeWorld(t, 0)
	const host = "shared.example.com"
	idle := 4 * time.Second
	if s := os.Getenv("GATETEST_WAKE_IDLE"); s != "" { // the 60 s figure of the issue, by hand
		idle, _ = time.ParseDuration(s)
	}
	c := newController(t, w, "shared", 0, true)
	w.service("shared", map[string]string{
		"gate.minekube.com/hosts":     host,
		"gate.minekube.com/port":      strconv.Itoa(c.port),
		"gate.minekube.com/wake":      "deployment/shared",
		"gate.minekube.com/idleAfter": idle.String(),
	})
	a, b := w.wakeGate(""), w.wakeGate("")
	stay := 3 * idle
	joined, kicked, _ := bots(t, b, host, 5, stay, "b")
	if joined != 5 {
		t.Fatalf("%d of 5 joined through B: %v", joined, kicked)
	}
	left := time.Now()
	ups, downs := c.counts()
	t.Logf("figure: players on B for %v (idleAfter %v): %d sleep calls while they were on", stay, idle, downs)
	if downs != 0 || ups != 1 {
		t.Fatalf("while B held sessions: %d sleeps, %d wakes (want 0, 1)", downs, ups)
	}
	until(t, "the sleep after the last player left", idle+30*time.Second, func() bool { _, d := c.counts(); return d >= 1 })
	after := c.lastDown().Sub(left)
	// Both replicas' countdowns end; a while later still exactly one sleep.
	mctest.WaitFor(t, "both replicas to see it asleep", 20*time.Second, func() bool {
		return phase(t, a) == "asleep" && phase(t, b) == "asleep"
	})
	_, downs = c.counts()
	t.Logf("figure: after the last player left: %d sleep call(s), %v later", downs, after.Round(100*time.Millisecond))
	if downs != 1 {
		t.Fatalf("%d sleep calls, want exactly 1", downs)
	}
}

// A reload during the idle countdown leaves the sleep at its original time:
// the deadline the admin API shows does not move, and the sleep comes then
// (plus the claim's and the scale call's own time), not a countdown later.
func TestWakeReloadKeepsTheIdleCountdown(t *testing.T) {
	w := newKubeWorld(t, 0)
	const host = "reload.example.com"
	idle := 10 * time.Second
	c := newController(t, w, "reload", 0, true)
	w.service("reload", map[string]string{
		"gate.minekube.com/hosts":     host,
		"gate.minekube.com/port":      strconv.Itoa(c.port),
		"gate.minekube.com/wake":      "deployment/reload",
		"gate.minekube.com/idleAfter": idle.String(),
	})
	g := w.wakeGate("")
	if joined, kicked, _ := bots(t, g, host, 1, 100*time.Millisecond, "r"); joined != 1 {
		t.Fatalf("did not join: %v", kicked)
	}
	var deadline time.Time
	until(t, "the idle countdown", 20*time.Second, func() bool {
		for _, s := range wakeStates(t, g) {
			if s.Phase == wake.PhaseIdle && s.Sessions == 0 {
				deadline = s.SleepAt
			}
		}
		return !deadline.IsZero()
	})
	// Halfway through the countdown the file changes (another route): reload.
	mctest.WaitFor(t, "half the countdown", idle, func() bool { return time.Until(deadline) <= idle/2 })
	data, err := os.ReadFile(g.path)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, g.path, strings.Replace(string(data), "routes: []", "routes:\n      - host: other.example.com\n        backend: 127.0.0.1:1", 1))
	until(t, "the reload", 10*time.Second, func() bool {
		_, body := g.get(admin.PathRoutes)
		return strings.Contains(body, "other.example.com")
	})
	reloadedAt := time.Now()
	for _, s := range wakeStates(t, g) {
		if s.Phase == wake.PhaseIdle && !s.SleepAt.Equal(deadline) {
			t.Fatalf("the reload moved the sleep from %v to %v", deadline, s.SleepAt)
		}
	}
	until(t, "the sleep", 2*idle+20*time.Second, func() bool { _, d := c.counts(); return d == 1 })
	late := c.lastDown().Sub(deadline)
	t.Logf("figure: reload %v before the end of a %v countdown: the deadline did not move; the scale-down came %v after it",
		deadline.Sub(reloadedAt).Round(100*time.Millisecond), idle, late.Round(100*time.Millisecond))
	// A countdown re-armed by the reload would end idle/2 or more after the
	// original deadline; the claim and the scale call take well under that.
	if late < 0 || late > 2*idle/5 {
		t.Fatalf("slept %v after the deadline %v", late, deadline)
	}
}
