package docker

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/dockerwake"
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
	containers, err := engine.Dial(dockerHost, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(containers.Close) // after the proxy, registered later, has stopped
	targets := func(s wake.Spec) (wake.Target, error) {
		tg, err := dockerwake.New(containers, s)
		if err != nil {
			return nil, err // not a nil *Target in a non-nil interface
		}
		return tg, nil
	}
	logs := &mctest.Logs{}
	log := logs.Logger(0)
	l, err := lite.New(cfg, lite.Options{Seed: 1, Log: logr.Discard(), WakeTargets: targets, Wake: wake.Options{Log: log.WithName("wake")}})
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
		if b.Route == "docker/"+host {
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
