package docker

import (
	"bytes"
	"context"
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
			"gate.hosts": host, "gate.strategy": "round-robin"}}))
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

// proxy is a real Lite instance serving a Merger fed by a docker Source.
type proxy struct {
	*lite.Lite
	addr string
}

func startProxy(t *testing.T, dockerHost string) *proxy {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte(fmt.Sprintf(`
config:
  lite:
    enabled: true
    shutdownGrace: 0s
    discovery:
      docker: {enabled: true, host: %q}
`, dockerHost)), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lite.New(cfg, lite.Options{Seed: 1, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	m := discovery.NewMerger(discovery.MergerOptions{Apply: l.Reload})
	if err := m.SetFile(cfg); err != nil {
		t.Fatal(err)
	}
	src, err := New(Options{Config: cfg.Lite.Discovery.Docker, MinBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mctest.Run(t, "proxy", func(ctx context.Context) error { return l.Serve(ctx, ln) })
	mctest.Run(t, "docker source", func(ctx context.Context) error { return src.Run(ctx, m) })
	mctest.WaitFor(t, "proxy ready", 5*time.Second, l.Ready)
	return &proxy{Lite: l, addr: ln.Addr().String()}
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
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
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
