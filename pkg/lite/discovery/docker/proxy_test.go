package docker

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/engines"
)

// TestContainersServePlayersThroughTheProxy runs the whole path: a real proxy
// whose routes a Merger feeds from this source, watching a real dockerd whose
// containers are real (mcload) Minecraft backends.
func TestContainersServePlayersThroughTheProxy(t *testing.T) {
	e := enginetest.NeedDocker(t)
	host := enginetest.Uniq("play") + ".example.com"
	var ids []string
	for i := 1; i <= 3; i++ {
		ids = append(ids, e.Run(t, enginetest.Container{Name: enginetest.Uniq(fmt.Sprintf("play-%d", i)), Labels: map[string]string{
			"gate.hosts": host, "gate.strategy": "round-robin", LabelComposeProject: enginetest.Uniq("play")}}))
	}
	p := startProxy(t, e.Host)
	mctest.WaitFor(t, "a route of 3 backends", 10*time.Second, func() bool { return len(p.backends(host)) == 3 })
	for _, b := range p.backends(host) {
		ping(t, b.Backend, host) // each container's server listens
	}

	// Round-robin puts one held player on each container.
	var held []net.Conn
	for range 3 {
		held = append(held, p.join(t, host))
	}
	for _, b := range p.backends(host) {
		if b.State.Active != 1 {
			t.Fatalf("backend %s (%s) has %d players, want 1 each", b.Backend, b.Origin, b.State.Active)
		}
	}

	// One container stops: it leaves the route within a second, the others'
	// players keep playing and new players go to the other two.
	stopped := p.backends(host)[1]
	e.Stop(t, ids[1])
	returned := time.Now()
	mctest.WaitFor(t, "the stopped container to leave the route", time.Second, func() bool {
		return len(p.backends(host)) == 2
	})
	t.Logf("figure: docker stop: the container left the proxy's route %v after the stop call returned", time.Since(returned).Round(time.Millisecond))
	for i, c := range held {
		if i != 1 && !echoes(c) {
			t.Fatalf("player %d on a running container lost its session", i)
		}
	}
	for range 4 {
		p.join(t, host)
	}
	for _, b := range p.backends(host) {
		if b.Backend == stopped.Backend {
			t.Fatalf("a new player went to the stopped container %s", b.Origin)
		}
	}
}

// proxy is a real Lite instance serving a Merger fed by a docker Source, with
// the Docker wake targets the gate binary builds.
type proxy struct {
	*lite.Lite
	addr   string
	merger *discovery.Merger
	logs   *mctest.Logs
}

// proxyYAML is the proxy's config, with the daemon's address to fill in.
// Quotas off: the suites log in many times from one address.
const proxyYAML = `
config:
  quota:
    connections: {enabled: false}
    logins: {enabled: false}
    status: {enabled: false}
    maxConnectionsPerIP: 0
  lite:
    enabled: true
    shutdownGrace: 0s
    discovery:
      docker: {enabled: true, host: %q}
`

func startProxy(t *testing.T, dockerHost string) *proxy {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte(fmt.Sprintf(proxyYAML, dockerHost)), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	targets := engines.New(cfg) // the gate binary's wake targets
	t.Cleanup(targets.Close)    // after the proxy, registered later, has stopped
	logs := &mctest.Logs{}
	log := logs.Logger(0)
	l, err := lite.New(cfg, lite.Options{Seed: 1, Log: logr.Discard(), WakeTargets: targets.Target, Wake: wake.Options{Log: log.WithName("wake")}})
	if err != nil {
		t.Fatal(err)
	}
	src, err := New(Options{Config: cfg.Lite.Discovery.Docker, Log: log, MinBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m, addr := enginetest.ServeDiscovered(t, cfg, l, src, log)
	return &proxy{Lite: l, addr: addr, merger: m, logs: logs}
}

// backends lists the proxy's backends of host's route.
func (p *proxy) backends(host string) []lite.BackendInfo {
	var out []lite.BackendInfo
	for _, b := range p.Backends() {
		if b.Route == "docker/"+host && b.Reason != "removed" { // a removed row keeps its players in view, not in the route
			out = append(out, b)
		}
	}
	return out
}

// join logs in (mcload echoes a player named "echo") and holds the session
// until the test ends.
func (p *proxy) join(t *testing.T, host string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	pre := mctest.LoginPreamble(protocol, host, "echo")
	_ = c.SetDeadline(time.Now().Add(config.MaxHoldFor)) // a login to a sleeping container is held while it starts
	if _, err := c.Write(pre); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(pre))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, pre) {
		t.Fatalf("login to %s: echo %q, %v", host, got, err)
	}
	_ = c.SetDeadline(time.Time{})
	return c
}

func echoes(c net.Conn) bool {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	defer func() { _ = c.SetDeadline(time.Time{}) }()
	if _, err := c.Write([]byte("still here")); err != nil {
		return false
	}
	got := make([]byte, len("still here"))
	_, err := io.ReadFull(c, got)
	return err == nil && strings.EqualFold(string(got), "still here")
}

// makeContainer brings the case's container about as tc.make says (removed
// when the case ends) and returns its name.
func makeContainer(t *testing.T, d *daemon, tc mcRouterCase, net string, fill func(string) string) string {
	t.Helper()
	labels := map[string]string{}
	for k, v := range tc.labels {
		labels[k] = fill(v)
	}
	c := enginetest.Container{Name: enginetest.Uniq(fmt.Sprintf("mcr-%x", time.Now().UnixNano()%1e6)), Labels: labels, Listen: tc.listen}
	switch tc.make {
	case running:
		d.e.Run(t, c)
	case stoppedOne:
		d.e.Create(t, c)
	case pausedOne:
		id := d.e.Run(t, c)
		d.pause(t, id)
	case noNetwork:
		id := d.e.Create(t, c)
		d.disconnect(t, "bridge", id)
		d.e.Start(t, id)
	case networkNone:
		d.e.Start(t, d.inNetworkMode(t, c, "none"))
	case dualOnly:
		d.e.Start(t, d.inNetworkMode(t, c, net))
	case bridgeDual:
		id := d.e.Create(t, c)
		d.connect(t, net, id, "mc-alias")
		d.e.Start(t, id)
	}
	return c.Name
}

// runCase checks what players get from the case's container.
func (p *proxy) runCase(t *testing.T, tc mcRouterCase, name, domain string) {
	t.Helper()
	host := func(h string) string { return h + "." + domain }
	if tc.served == nil && !tc.catchAll && tc.asleep == "" {
		// Nothing of the case's own becomes a route: a container created
		// after it does, and its route says the source has listed both.
		witness := enginetest.Uniq(fmt.Sprintf("witness-%x", time.Now().UnixNano()%1e6))
		p.witness(t, witness, host("witness"))
	}
	for _, h := range tc.served {
		p.waitReady(t, host(h), host(h), tc.make == pausedOne || tc.make == stoppedOne)
		b := p.servedBy(t, host(h))
		if b.Origin != "docker "+name || !strings.HasPrefix(b.Backend, tc.addrIn) {
			t.Errorf("%s served by %s (%s), want %s at %s...", host(h), b.Origin, b.Backend, name, tc.addrIn)
		}
		if tc.route != nil {
			if msg := tc.route(p.routeOf(host(h))); msg != "" {
				t.Error(msg)
			}
		}
	}
	for _, h := range tc.unknown {
		if text := p.refusal(t, host(h)); !strings.Contains(text, unknownHost) {
			t.Errorf("%s: disconnect %q, want %q", host(h), text, unknownHost)
		}
	}
	if tc.asleep != "" {
		p.waitRoute(t, host(tc.asleep), true)
		p.waitAsleep(t, name)
		body, err := mctest.Ping(p.addr, protocol, host(tc.asleep))
		if err != nil || !strings.Contains(body, tc.motd) {
			t.Errorf("ping of %s: %s, %v; want the description %q", host(tc.asleep), body, err, tc.motd)
		}
	}
	if tc.loading != "" {
		p.waitRoute(t, host(tc.loading), true)
		p.waitAsleep(t, name)
		p.pingWhileWaking(t, host(tc.loading), tc.motd)
	}
	if tc.catchAll {
		mctest.WaitFor(t, "a catch-all route of "+name, 10*time.Second, func() bool { return p.routeOf("*").Origin == "docker "+name })
		p.waitReady(t, "*", host("nobody"), false)
		if b := p.servedBy(t, host("nobody")); b.Origin != "docker "+name {
			t.Errorf("a host nobody claims is served by %s, want %s", b.Origin, name)
		}
	}
}

// pingWhileWaking holds a login to host, whose container sleeps, and waits
// for a ping to show want while it wakes.
func (p *proxy) pingWhileWaking(t *testing.T, host, want string) {
	t.Helper()
	if body, err := mctest.Ping(p.addr, protocol, host); err != nil || strings.Contains(body, want) {
		t.Fatalf("ping of %s before any login: %s, %v; want the asleep answer", host, body, err)
	}
	c := mctest.Dial(t, p.addr)
	if _, err := c.Conn.Write(mctest.LoginPreamble(protocol, host, "echo")); err != nil {
		t.Fatal(err)
	}
	var body string
	mctest.WaitFor(t, "a ping of "+host+" showing "+want, 10*time.Second, func() bool {
		body, _ = mctest.Ping(p.addr, protocol, host)
		return strings.Contains(body, want)
	})
	_ = c.Close()
}

// waitAsleep waits until the proxy knows that the wake target of container
// name sleeps: until its engine has said so, a ping of the route has no
// status to answer with.
func (p *proxy) waitAsleep(t *testing.T, name string) {
	t.Helper()
	mctest.WaitFor(t, "the target of "+name+" asleep", 10*time.Second, func() bool {
		for _, s := range p.Wake().States() {
			if s.Key == "docker "+name {
				return s.Phase == wake.PhaseAsleep
			}
		}
		return false
	})
}

// witness runs a container whose route shows once the source listed it.
func (p *proxy) witness(t *testing.T, name, host string) {
	t.Helper()
	e := enginetest.NeedDocker(t)
	e.Run(t, enginetest.Container{Name: name, Labels: map[string]string{LabelHosts: host}})
	p.waitRoute(t, host, false)
}

// waitRoute waits until a route serves host, without a backend when
// asleep.
func (p *proxy) waitRoute(t *testing.T, host string, asleep bool) {
	t.Helper()
	mctest.WaitFor(t, "a route of "+host, 10*time.Second, func() bool {
		r := p.routeOf(host)
		return r.Origin != "" && (!asleep || len(r.Backend) == 0)
	})
}

// waitReady waits for the route of pattern, then (unless it is asleep) for
// its backends to answer a status ping for host: a container runs, and so is a
// backend, a moment before its server listens.
func (p *proxy) waitReady(t *testing.T, pattern, host string, asleep bool) {
	t.Helper()
	p.waitRoute(t, pattern, asleep)
	if !asleep {
		for _, b := range p.routeOf(pattern).Backend {
			ping(t, b, host)
		}
	}
}

// routeOf is the route in force with exactly host among its hosts.
func (p *proxy) routeOf(host string) config.Route {
	for _, r := range p.Config().Lite.Routes {
		if slices.Contains(r.Host, host) {
			return r
		}
	}
	return config.Route{}
}

// servedBy logs in to host, holds the session until the proxy shows which
// backend carries it, leaves, and returns that backend.
func (p *proxy) servedBy(t *testing.T, host string) lite.BackendInfo {
	t.Helper()
	c := p.join(t, host)
	var got []lite.BackendInfo
	mctest.WaitFor(t, "one backend carrying the session to "+host, 5*time.Second, func() bool {
		got = p.busy()
		return len(got) == 1
	})
	_ = c.Close()
	mctest.WaitFor(t, "the session to "+host+" over", 5*time.Second, func() bool { return len(p.busy()) == 0 })
	return got[0]
}

// busy lists the backends that carry a session now, each once (a container
// that is also the catch-all is a backend of two routes).
func (p *proxy) busy() []lite.BackendInfo {
	var out []lite.BackendInfo
	for _, b := range p.Backends() {
		if b.State.Active > 0 && !slices.ContainsFunc(out, func(o lite.BackendInfo) bool { return o.Backend == b.Backend }) {
			out = append(out, b)
		}
	}
	return out
}

// refusal logs in to host and returns the proxy's Disconnect text.
func (p *proxy) refusal(t *testing.T, host string) string {
	t.Helper()
	c := mctest.Dial(t, p.addr)
	if _, err := c.Conn.Write(mctest.LoginPreamble(protocol, host, "echo")); err != nil {
		t.Fatal(err)
	}
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	text, err := c.Disconnect()
	if err != nil {
		t.Fatalf("login to %s: want a Disconnect, got %v", host, err)
	}
	return text
}

// port checks the route's backend port.
func port(want int) func(config.Route) string {
	return func(r config.Route) string {
		for _, b := range r.Backend {
			if !strings.HasSuffix(b, fmt.Sprintf(":%d", want)) {
				return fmt.Sprintf("backends %v, want port %d", r.Backend, want)
			}
		}
		return ""
	}
}

// wakeSettings checks the route's holdFor and idleAfter (0: never).
func wakeSettings(holdFor, idleAfter time.Duration) func(config.Route) string {
	return func(r config.Route) string {
		if r.Wake == nil || r.WakeSettings.HoldFor != holdFor || r.WakeSettings.IdleAfter != idleAfter {
			return fmt.Sprintf("wake %v, holdFor %s, idleAfter %s; want container, %s, %s", r.Wake, r.WakeSettings.HoldFor, r.WakeSettings.IdleAfter, holdFor, idleAfter)
		}
		return ""
	}
}
