package discovery_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// world is a real proxy on loopback whose routes a Merger feeds.
type world struct {
	t      *testing.T
	proxy  *lite.Lite
	addr   string
	merger *discovery.Merger
	logs   *mctest.Logs
}

func newWorld(t *testing.T, fileYAML string) *world {
	t.Helper()
	return newWorldWith(t, fileYAML, lite.Options{Log: logr.Discard()}, &mctest.Logs{})
}

// newWorldWith starts the world with o (its Seed set here), logging the
// merger's lines to logs.
func newWorldWith(t *testing.T, fileYAML string, o lite.Options, logs *mctest.Logs) *world {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte(fileYAML), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Seed = 7
	p, err := lite.New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, proxy: p, logs: logs}
	// Every change applies at once: the tests log in right after a Replace.
	w.merger = discovery.NewMerger(discovery.MergerOptions{Apply: p.Reload, Log: w.logs.Logger(0), Coalesce: -1})
	if err := w.merger.SetFile(cfg); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.addr = ln.Addr().String()
	mctest.Run(t, "proxy", func(ctx context.Context) error { return p.Serve(ctx, ln) })
	mctest.WaitFor(t, "proxy ready", 5*time.Second, p.Ready)
	return w
}

// login joins host through the proxy and returns the live session.
func (w *world) login(host string) *mctest.Client {
	w.t.Helper()
	c := mctest.Dial(w.t, w.addr)
	pre := mctest.LoginPreamble(765, host, "Steve")
	if _, err := c.Conn.Write(pre); err != nil {
		w.t.Fatal(err)
	}
	got := make([]byte, len(pre))
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.R.Read(got[:1]); err != nil {
		w.t.Fatalf("login to %s: %v", host, err)
	}
	if _, err := readFull(c, got[1:]); err != nil || !bytes.Equal(got, pre) {
		w.t.Fatalf("login to %s: echo %x, %v", host, got, err)
	}
	return c
}

// refused logs in to host and returns the Disconnect text.
func (w *world) refused(host string) string {
	w.t.Helper()
	c := mctest.Dial(w.t, w.addr)
	if _, err := c.Conn.Write(mctest.LoginPreamble(765, host, "Steve")); err != nil {
		w.t.Fatal(err)
	}
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	text, err := c.Disconnect()
	if err != nil {
		w.t.Fatalf("login to %s: want a Disconnect, got %v", host, err)
	}
	return text
}

func readFull(c *mctest.Client, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := c.R.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// echo proves a session still carries bytes both ways.
func echo(t *testing.T, c *mctest.Client) {
	t.Helper()
	msg := []byte("still here")
	if _, err := c.Conn.Write(msg); err != nil {
		t.Fatalf("session write: %v", err)
	}
	got := make([]byte, len(msg))
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := readFull(c, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("session echo %q, %v", got, err)
	}
}

const fileYAML = `
config:
  lite:
    enabled: true
    routes:
      - host: play.test
        backend: {{file}}
    discovery:
      kubernetes: {enabled: true}
`

func TestDiscoveredRoutesGoLiveAndLeaveWithoutTouchingSessions(t *testing.T) {
	fileBackend := mctest.NewBackend(t, mctest.Options{})
	b1, b2 := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.ReplaceAll(fileYAML, "{{file}}", fileBackend.Addr()))
	if !strings.Contains(w.refused("lobby.test"), "no server at this address") {
		t.Fatal("lobby.test routed before any source published it")
	}
	lobby := discovery.Route{Origin: "kubernetes games/lobby", Hosts: []string{"lobby.test"}, KeyPrefix: "gate.minekube.com/",
		Backends: []discovery.Backend{{Addr: b1.Addr()}, {Addr: b2.Addr()}}, Settings: map[string]string{"strategy": "round-robin"}}
	w.merger.Replace("kubernetes", []discovery.Route{lobby})

	first, second := w.login("lobby.test"), w.login("lobby.test")
	if b1.Logins() != 1 || b2.Logins() != 1 {
		t.Fatalf("round-robin over discovered backends: b1 %d, b2 %d logins", b1.Logins(), b2.Logins())
	}
	w.login("play.test") // the file route serves alongside
	var origins []string
	for _, r := range w.proxy.Routes() {
		origins = append(origins, r.Origin)
	}
	if got := strings.Join(origins, ","); got != "config.yml:6,kubernetes games/lobby" {
		t.Fatalf("route origins = %s", got)
	}

	// b1 leaves the set: its live session stays, new players go to b2 only.
	lobby.Backends = lobby.Backends[1:]
	w.merger.Replace("kubernetes", []discovery.Route{lobby})
	for range 4 {
		w.login("lobby.test")
	}
	if b1.Logins() != 1 || b2.Logins() != 5 {
		t.Fatalf("after b1 left: b1 %d, b2 %d logins", b1.Logins(), b2.Logins())
	}
	echo(t, first)
	echo(t, second)

	// The Service is gone: its host is unknown again, sessions still stay.
	w.merger.Replace("kubernetes", nil)
	if !strings.Contains(w.refused("lobby.test"), "no server at this address") {
		t.Fatal("lobby.test still routed after its source dropped it")
	}
	echo(t, first)
	if n := w.logs.Count("discovered routes applied"); n != 3 {
		t.Fatalf("%d apply lines, want 3", n)
	}
}

func TestStaleSourceKeepsServingItsLastRoutes(t *testing.T) {
	fileBackend, b := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.ReplaceAll(fileYAML, "{{file}}", fileBackend.Addr()))
	w.merger.Replace("kubernetes", []discovery.Route{{Origin: "kubernetes games/lobby", Hosts: []string{"lobby.test"},
		Backends: []discovery.Backend{{Addr: b.Addr()}}}})
	outage := errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	w.merger.Stale("kubernetes", outage)
	w.merger.Stale("kubernetes", outage) // retries do not log again
	w.login("lobby.test")
	ss := w.merger.Sources()
	if len(ss) != 1 || ss[0].StaleSince.IsZero() || ss[0].Routes != 1 || ss[0].Cause != outage.Error() {
		t.Fatalf("sources = %+v", ss)
	}
	if n := w.logs.Count("route source stale"); n != 1 {
		t.Fatalf("%d stale lines, want 1", n)
	}
	// Back in sync with the same set: fresh again, nothing re-applied.
	w.merger.Replace("kubernetes", []discovery.Route{{Origin: "kubernetes games/lobby", Hosts: []string{"lobby.test"},
		Backends: []discovery.Backend{{Addr: b.Addr()}}}})
	if ss := w.merger.Sources(); !ss[0].StaleSince.IsZero() || w.logs.Count("route source fresh again") != 1 {
		t.Fatalf("after resync: %+v", ss)
	}
	if n := w.logs.Count("discovered routes applied"); n != 1 {
		t.Fatalf("%d apply lines, want 1 (an unchanged set is not applied again)", n)
	}
}

func TestConflictingHostsFollowPrecedenceAndWarnOnce(t *testing.T) {
	fileBackend, b := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.ReplaceAll(fileYAML, "{{file}}", fileBackend.Addr()))
	set := []discovery.Route{
		{Origin: "kubernetes games/play", Hosts: []string{"PLAY.test"}, Backends: []discovery.Backend{{Addr: b.Addr()}}},
		{Origin: "kubernetes games/any", Hosts: []string{"*"}, Default: true, Backends: []discovery.Backend{{Addr: b.Addr()}}},
		{Origin: "kubernetes games/zeta", Hosts: []string{"zeta.test"}, Backends: []discovery.Backend{{Addr: b.Addr()}}},
	}
	w.merger.Replace("kubernetes", set)
	set[2].Backends = nil // a change, so the set is merged again
	w.merger.Replace("kubernetes", set)
	w.login("play.test")
	if fileBackend.Logins() != 1 || b.Logins() != 0 {
		t.Fatalf("the file route must serve play.test: file %d, discovered %d", fileBackend.Logins(), b.Logins())
	}
	lines := w.logs.Find("host claimed by two routes")
	if len(lines) != 1 || !strings.Contains(lines[0], `"serving"="config.yml:6"`) || !strings.Contains(lines[0], `"shadowed"="kubernetes games/play"`) {
		t.Fatalf("conflict lines = %q", lines)
	}
	var keys []string
	for _, r := range w.proxy.Routes() {
		keys = append(keys, r.Origin)
	}
	if got := strings.Join(keys, ","); got != "config.yml:6,kubernetes games/play,kubernetes games/zeta,kubernetes games/any" {
		t.Fatalf("route order = %s (file first, catch-all last)", got)
	}
	w.login("anything.test") // the catch-all
	if b.Logins() != 1 {
		t.Fatalf("catch-all logins = %d", b.Logins())
	}
	if !strings.Contains(w.refused("zeta.test"), "unavailable") {
		t.Fatal("a route with no ready backend must say unavailable")
	}
}

func TestBadSettingRejectsOneRouteNotTheSet(t *testing.T) {
	fileBackend, b := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.ReplaceAll(fileYAML, "{{file}}", fileBackend.Addr()))
	set := []discovery.Route{
		{Origin: "kubernetes games/bad", Hosts: []string{"bad.test"}, KeyPrefix: "gate.minekube.com/",
			Backends: []discovery.Backend{{Addr: b.Addr()}}, Settings: map[string]string{"strategy": "fastest"}},
		{Origin: "kubernetes games/good", Hosts: []string{"good.test"}, KeyPrefix: "gate.minekube.com/",
			Backends: []discovery.Backend{{Addr: b.Addr()}}},
	}
	w.merger.Replace("kubernetes", set)
	w.merger.Replace("kubernetes", append(set, discovery.Route{Origin: "kubernetes games/more", Hosts: []string{"more.test"}}))
	w.login("good.test")
	if !strings.Contains(w.refused("bad.test"), "no server at this address") {
		t.Fatal("the rejected route must not serve")
	}
	lines := w.logs.Find("discovered route rejected")
	if len(lines) != 1 || !strings.Contains(lines[0], `gate.minekube.com/strategy: unknown \"fastest\"`) || !strings.Contains(lines[0], "kubernetes games/bad") {
		t.Fatalf("rejection lines = %q", lines)
	}
	if ss := w.merger.Sources(); len(ss[0].Rejected) != 1 || ss[0].Routes != 2 {
		t.Fatalf("sources = %+v", ss)
	}
}

func TestRefusedApplyKeepsTheRoutesInForce(t *testing.T) {
	fileBackend := mctest.NewBackend(t, mctest.Options{})
	cfg, _, err := config.ParseEnv([]byte(strings.ReplaceAll(fileYAML, "{{file}}", fileBackend.Addr())), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	var applied []*config.Config
	refuse := false
	m := discovery.NewMerger(discovery.MergerOptions{Apply: func(c *config.Config) error {
		if refuse {
			return errors.New("refused")
		}
		applied = append(applied, c)
		return nil
	}, Coalesce: -1})
	if err := m.SetFile(cfg); err != nil {
		t.Fatal(err)
	}
	one := []discovery.Route{{Origin: "docker a", Hosts: []string{"a.test"}, Backends: []discovery.Backend{{Addr: "10.9.0.30:25565", Origin: "docker a-1"}}}}
	m.Replace("docker", one)
	refuse = true
	m.Replace("docker", nil)
	refuse = false
	if len(applied) != 2 || len(applied[1].Lite.Routes) != 2 {
		t.Fatalf("applied %d configs", len(applied))
	}
	if got := m.Merged().Lite.Routes[1]; got.Origin != "docker a" || got.BackendOrigin[0] != "docker a-1" || got.Key != "docker/a.test" {
		t.Fatalf("the refused change replaced the routes in force: %+v", got)
	}
}

// fleet is n discovered routes as a Docker source publishes them, each with the
// settings a labelled container typically carries.
func fleet(n int) []discovery.Route {
	out := make([]discovery.Route, n)
	for i := range out {
		out[i] = discovery.Route{Origin: fmt.Sprintf("docker mc-%d", i), Hosts: []string{fmt.Sprintf("mc-%d.example.com", i)},
			KeyPrefix: "gate.", Container: fmt.Sprintf("mc-%d", i),
			Backends: []discovery.Backend{{Addr: fmt.Sprintf("10.1.%d.%d:25565", i/256, i%256)}},
			Settings: map[string]string{"strategy": "least-connections", "fallback": `{motd: "§aserver ` + fmt.Sprint(i) + ` is starting"}`}}
	}
	return out
}

// BenchmarkDiscoveryEvent is the CPU one discovery event costs with 2,000
// discovered routes in force: one container of the fleet crash-loops, so its
// route loses and regains its backend on alternate events, and the merged
// config is applied to a real proxy. "applied" applies every event (the
// first of a burst, or every one without coalescing); "in a burst" is an
// event within DefaultCoalesce of the last apply, which waits to be applied
// with the rest of its burst.
func BenchmarkDiscoveryEvent(b *testing.B) {
	b.Run("applied", func(b *testing.B) { benchEvents(b, discovery.MergerOptions{Coalesce: -1}) })
	b.Run("in a burst", func(b *testing.B) {
		clk := mctest.NewTimerClock(time.Time{}) // never advanced: every event waits
		benchEvents(b, discovery.MergerOptions{Now: clk.Now, AfterFunc: clk.AfterFunc})
	})
}

func benchEvents(b *testing.B, o discovery.MergerOptions) {
	cfg, _, err := config.ParseEnv([]byte("config:\n  lite:\n    enabled: true\n    discovery:\n      docker: {enabled: true}\n"), "config.yml", nil)
	if err != nil {
		b.Fatal(err)
	}
	p, err := lite.New(cfg, lite.Options{Seed: 1, Log: logr.Discard()})
	if err != nil {
		b.Fatal(err)
	}
	o.Apply = p.Reload
	m := discovery.NewMerger(o)
	if err := m.SetFile(cfg); err != nil {
		b.Fatal(err)
	}
	up, down := fleet(2000), fleet(2000)
	down[0].Backends = nil
	m.Replace("docker", up)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		set := up
		if i%2 == 0 {
			set = down
		}
		m.Replace("docker", set)
		i++
	}
	b.StopTimer()
	m.Close()
}
