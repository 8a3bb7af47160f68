package dockerwake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	dockersource "go.minekube.com/gate/pkg/lite/discovery/docker"
	"go.minekube.com/gate/pkg/lite/engine/docker"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/dockerwake"
)

// wakeProxy is a real Lite instance whose routes a Merger takes from a real
// docker Source, with the Docker wake targets the gate binary builds.
type wakeProxy struct {
	*lite.Lite
	addr string
}

// wakeProxyYAML is the proxy's config, with the daemon's address to fill in.
// Quotas off: 20 players from one address in a burst is the point here.
const wakeProxyYAML = `
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

func startWakeProxy(t *testing.T, dockerHost string) *wakeProxy {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte(fmt.Sprintf(wakeProxyYAML, dockerHost)), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	log := logr.Discard()
	if testing.Verbose() {
		log = testr.New(t)
	}
	containers, err := docker.Dial(cfg.Lite.Discovery.Docker.Host, docker.Options{})
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
	l, err := lite.New(cfg, lite.Options{Seed: 1, Log: log, WakeTargets: targets,
		Wake: wake.Options{Log: log.WithName("wake")}})
	if err != nil {
		t.Fatal(err)
	}
	src, err := dockersource.New(dockersource.Options{Config: cfg.Lite.Discovery.Docker, Log: log, MinBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, addr := enginetest.ServeDiscovered(t, cfg, l, src, log)
	return &wakeProxy{Lite: l, addr: addr}
}

// route is the proxy's route in force for host.
func (p *wakeProxy) route(host string) (config.Route, bool) {
	for _, r := range p.Config().Lite.Routes {
		if slices.Contains(r.Host, host) {
			return r, true
		}
	}
	return config.Route{}, false
}

// state is the wake state of key (a zero State when the key is not bound).
func (p *wakeProxy) state(key string) wake.State {
	for _, s := range p.Wake().States() {
		if s.Key == key {
			return s
		}
	}
	return wake.State{}
}

// asleepAnswer checks a status answer for the asleep MOTD and nobody online.
func asleepAnswer(body, motd string) (version string, max int, err error) {
	var st struct {
		Version     struct{ Name string }
		Players     struct{ Max, Online int }
		Description json.RawMessage
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		return "", 0, fmt.Errorf("status %q: %w", body, err)
	}
	if !strings.Contains(string(st.Description), motd) || st.Players.Online != 0 {
		return "", 0, fmt.Errorf("not the asleep answer: %s", body)
	}
	return st.Version.Name, st.Players.Max, nil
}

// heldLogin logs in with the preamble and tail (bytes a client sends while
// its login is held) and returns the connection once mcload has echoed them
// all, through the proxy's replay, byte for byte.
func heldLogin(addr string, sent []byte, within time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(within))
	if _, err := c.Write(sent); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("write: %w", err)
	}
	got := make([]byte, len(sent))
	n, err := io.ReadFull(c, got)
	if err != nil || !bytes.Equal(got, sent) {
		_ = c.Close()
		return nil, fmt.Errorf("echo of %d held bytes: got %d (%q...), %v", len(sent), n, got[:min(n, 48)], err)
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// TestProxyWakesStoppedContainerOnLoginAndSleepsItWhenIdle runs issue 21's
// Docker path end to end: a stopped container labelled gate.wake=container is
// a route of the proxy; pings are answered asleep without starting it, 20
// concurrent logins start it once and join with their held bytes replayed,
// and once they leave the proxy stops it after idleAfter and keeps the route.
func TestProxyWakesStoppedContainerOnLoginAndSleepsItWhenIdle(t *testing.T) {
	e := enginetest.NeedDocker(t)
	name := enginetest.Uniq("e2e-sleepy")
	x := &e2e{t: t, e: e, host: name + ".example.com", key: "docker " + name}
	created := time.Now()
	x.id = e.Create(t, enginetest.Container{Name: name, Labels: map[string]string{"gate.hosts": x.host, "gate.wake": "container",
		"gate.idleAfter": e2eIdleAfter.String(), "gate.asleepMotd": e2eMOTD}})
	x.p = startWakeProxy(t, e.Host)

	// The route comes from the listing with no backend, and the target's
	// inspect finds it stopped.
	mctest.WaitFor(t, "route of the stopped container, target asleep", 15*time.Second, func() bool {
		rt, ok := x.p.route(x.host)
		return ok && len(rt.Backend) == 0 && x.p.state(x.key).Phase == wake.PhaseAsleep
	})
	x.pingsNeverWake(created)
	conns := x.loginsWakeOnce()
	x.sleepsWhenIdle(conns)
	x.asleepAnswerIsTheLastStatus()
}

const (
	e2eMOTD      = "e2e: asleep, join to wake"
	e2eIdleAfter = 3 * time.Second
	e2ePlayers   = 20
)

// e2e is the state of TestProxyWakesStoppedContainerOnLoginAndSleepsItWhenIdle
// between its phases.
type e2e struct {
	t             *testing.T
	e             *enginetest.Docker
	p             *wakeProxy
	id, host, key string
}

// pingsNeverWake: (1) pings never wake it; each is answered asleep (no last
// good status yet: the MOTD alone).
func (x *e2e) pingsNeverWake(created time.Time) {
	t := x.t
	const pings = 200
	for i := range pings {
		body, err := mctest.Ping(x.p.addr, protocol, x.host)
		if err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
		if _, _, err := asleepAnswer(body, e2eMOTD); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
	}
	pingStarts := x.e.Events(t, x.id, "start", created, time.Now())
	if st := x.p.state(x.key); pingStarts != 0 || st.Wakes != 0 || st.Phase != wake.PhaseAsleep {
		t.Fatalf("after %d pings: %d starts, state %+v; want 0 starts, asleep", pings, pingStarts, st)
	}
	t.Logf("figure: %d pings to the sleeping container's route: %d container starts, %d of %d answered with the asleep MOTD", pings, pingStarts, pings, pings)
}

// joined is one held login's outcome.
type joined struct {
	c    net.Conn
	took time.Duration
	err  error
}

// loginsWakeOnce: (2) 20 concurrent logins with the container stopped, each
// sending bytes after its Login Start while held.
func (x *e2e) loginsWakeOnce() []net.Conn {
	t := x.t
	loginsAt := time.Now()
	// When the route got the container's address: the rest of a join's wait
	// is the readiness poll's backoff.
	routed, stop := x.watchRouted(loginsAt)
	results := x.heldLogins(loginsAt)
	stop()
	var conns []net.Conn
	var slowest time.Duration
	for i, r := range results {
		if r.err != nil {
			t.Errorf("player %d: %v", i, r.err)
			continue
		}
		conns = append(conns, r.c)
		slowest = max(slowest, r.took)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	loginStarts := x.e.Events(t, x.id, "start", loginsAt, time.Now())
	st := x.p.state(x.key)
	t.Logf("figure: %d concurrent logins to the stopped container: %d container starts (%d wake calls), %d of %d joined with their held bytes echoed byte-exact",
		e2ePlayers, loginStarts, st.Wakes, len(conns), e2ePlayers)
	t.Logf("figure: time to join: the last of %d players %s after the logins began (wake call to ready: %s; the route had the container's address after %s)",
		e2ePlayers, slowest.Round(time.Millisecond), st.LastWake.Round(time.Millisecond), routed().Round(time.Millisecond))
	if loginStarts != 1 || st.Wakes != 1 || len(conns) != e2ePlayers {
		t.Fatalf("logins: %d starts, %d wake calls, %d of %d joined; want 1, 1, all", loginStarts, st.Wakes, len(conns), e2ePlayers)
	}
	mctest.WaitFor(t, "the target awake with 20 sessions", 5*time.Second, func() bool {
		st := x.p.state(x.key)
		return st.Phase == wake.PhaseAwake && st.Sessions == e2ePlayers
	})
	return conns
}

// heldLogins logs the players in at once, each with random bytes after its
// Login Start, and waits for every outcome.
func (x *e2e) heldLogins(loginsAt time.Time) []joined {
	rng := rand.New(rand.NewPCG(21, 1))
	sent := make([][]byte, e2ePlayers)
	for i := range sent {
		tail := make([]byte, 64+rng.IntN(192))
		for j := range tail {
			tail[j] = byte(rng.Uint32())
		}
		sent[i] = append(mctest.LoginPreamble(protocol, x.host, fmt.Sprintf("player%02d", i)), tail...)
	}
	results := make([]joined, e2ePlayers)
	var wg sync.WaitGroup
	for i := range e2ePlayers {
		wg.Go(func() {
			// holdFor is 25 s: a login not joined by then gets a Disconnect,
			// which the echo check reports.
			c, err := heldLogin(x.p.addr, sent[i], 30*time.Second)
			results[i] = joined{c: c, took: time.Since(loginsAt), err: err}
		})
	}
	wg.Wait()
	return results
}

// watchRouted notes when the route first has a backend. stop ends the watch;
// routed, after stop, is how long after since that was (0: never).
func (x *e2e) watchRouted(since time.Time) (routed func() time.Duration, stop func()) {
	var at time.Duration
	done := make(chan struct{})
	var watch sync.WaitGroup
	watch.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if rt, ok := x.p.route(x.host); ok && len(rt.Backend) > 0 {
				at = time.Since(since)
				return
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() time.Duration { return at }, func() { close(done); watch.Wait() }
}

// sleepsWhenIdle: (3) everyone leaves: after idleAfter the proxy stops the
// container once; its route stays, without a backend, and the target is
// asleep.
func (x *e2e) sleepsWhenIdle(conns []net.Conn) {
	t := x.t
	for _, c := range conns {
		_ = c.Close()
	}
	left := time.Now()
	mctest.WaitFor(t, "the container put to sleep and its route without backends", e2eIdleAfter+20*time.Second, func() bool {
		rt, ok := x.p.route(x.host)
		st := x.p.state(x.key)
		return ok && len(rt.Backend) == 0 && st.Phase == wake.PhaseAsleep && st.Sleeps == 1
	})
	slept := time.Since(left)
	stops := x.e.Events(t, x.id, "stop", left, time.Now())
	t.Logf("figure: time from the last player leaving to the container stopped (route without backends, target asleep): %s with idleAfter %s; %d stop",
		slept.Round(time.Millisecond), e2eIdleAfter, stops)
	if stops != 1 {
		t.Errorf("the container was stopped %d times, want 1", stops)
	}
	if slept < e2eIdleAfter {
		t.Errorf("stopped %s after the last player left, before idleAfter %s", slept, e2eIdleAfter)
	}
}

// asleepAnswerIsTheLastStatus: the asleep answer now carries the status the
// server last gave (mcload's version and max players), learnt while it was
// awake, and still wakes nothing.
func (x *e2e) asleepAnswerIsTheLastStatus() {
	t := x.t
	since := time.Now()
	body, err := mctest.Ping(x.p.addr, protocol, x.host)
	if err != nil {
		t.Fatal(err)
	}
	version, maxPlayers, err := asleepAnswer(body, e2eMOTD)
	if err != nil || version != "1.20.4" || maxPlayers != 1000 {
		t.Errorf("ping after the sleep: %s (version %q, max %d): %v", body, version, maxPlayers, err)
	}
	if n := x.e.Events(t, x.id, "start", since, time.Now()); n != 0 {
		t.Errorf("a ping of the slept route started the container %d times", n)
	}
}
