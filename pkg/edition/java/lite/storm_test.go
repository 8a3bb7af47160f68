package lite_test

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// stormConfig is one route of strategy over backends, with active health checks
// every 300ms (down after 2 failed probes) and a 2s wait for a login's first byte:
// loose enough that the live servers stay healthy on a loaded machine. tight makes
// them 100ms and 500ms, the settings of the figures for a freshly dead one.
func stormConfig(name strategy.Name, tight bool, backends ...string) string {
	frt, interval, timeout := "2s", "300ms", "250ms"
	if tight {
		frt, interval, timeout = "500ms", "100ms", "80ms"
	}
	return oneRoute("*", backends...).with("strategy: "+string(name), "cachePingTTL: -1").
		quotasOff().withTop("connectionTimeout: 1s", "readTimeout: 10s").
		withLite("firstResponseTimeout: "+frt, fmt.Sprintf("healthCheck: {enabled: true, interval: %s, timeout: %s, rise: 2, fall: 2}", interval, timeout)).
		String()
}

// storm logs players in at rate per second for d through the proxy at addr, each
// waiting for its echo and leaving, and returns how many were not served.
func storm(addr string, rate int, d time.Duration) (failed int64) {
	var wg sync.WaitGroup
	var bad atomic.Int64
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for i := range rate * int(d/time.Millisecond) / 1000 {
		<-tick.C // pacing the load, not synchronisation
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				bad.Add(1)
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if err := joinEcho(mctest.NewClient(c), "storm.example.com", fmt.Sprintf("p%d", i)); err != nil {
				bad.Add(1)
			}
		})
	}
	wg.Wait()
	return bad.Load()
}

// stormRun serves a route of name over four 300ms-slow backends, lets every one of
// them serve, turns one dark, and runs a storm of rate logins a second for span:
// at once (unannounced), or once health checks have marked it down. It returns the
// attempts the dark backend got during the storm.
func stormRun(t *testing.T, name strategy.Name, unannounced bool, rate int, span time.Duration) int64 {
	p, dark := darkening(t, name, unannounced)
	if !unannounced {
		waitFor(t, "the dark backend marked down", 5*time.Second, func() bool {
			return backendHealth(t, p, dark.addr) != strategy.HealthHealthy
		})
	}
	before, spills := dark.Logins(), p.Manager().Spills()
	failed := storm(p.addr, rate, span)
	got := dark.Logins() - before
	t.Logf("%s: %d logins at %d/s: %d attempts on the dead backend, %d spills, %d not served",
		name, rate*int(span/time.Millisecond)/1000, rate, got, p.Manager().Spills()-spills, failed)
	return got
}

// darkening serves a route of name over four 300ms-slow backends (stormConfig,
// tight or not), lets every one of them serve (its last sample is good), and turns
// the first one dark.
func darkening(t *testing.T, name strategy.Name, tight bool) (*proxy, *backend) {
	t.Helper()
	dark := newBackendWith(t, mctest.Options{LoginDelay: 300 * time.Millisecond})
	addrs := []string{dark.addr}
	for range 3 {
		addrs = append(addrs, newBackendWith(t, mctest.Options{LoginDelay: 300 * time.Millisecond}).addr)
	}
	p := startProxy(t, stormConfig(name, tight, addrs...), proxyOpts{seed: 22})
	for range 8 {
		c := dialProxy(t, p.addr)
		c.login("storm.example.com")
		_ = c.Close()
	}
	dark.SetDark(true)
	return p, dark
}

// Issue 22, defect 1: when every usable backend had its attempts in flight at the
// limit, the order widened to all backends, ejected ones included, and least-loaded
// and lowest-latency put the dead one first: 78% of a 300/s storm against 300ms-slow
// servers waited on the dead one. Widening keeps health ranks (busy, then doubtful,
// then known-dead last) and "busy" follows each backend's answer rate, so a storm
// costs the dead backend at most 3 attempts, whatever the strategy.
func TestLoginStormSparesTheDeadBackend(t *testing.T) {
	for _, name := range strategy.Names() {
		t.Run(string(name), func(t *testing.T) {
			if got := stormRun(t, name, false, 300, time.Second); got > strategy.EjectFailures {
				t.Errorf("the dead backend got %d attempts during the storm, want at most %d", got, strategy.EjectFailures)
			}
		})
	}
}

// The same storm starting the moment the backend goes dark, before any probe or
// attempt has failed: figures only (see the report of issue 22).
func TestLoginStormIntoAFreshlyDeadBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("figures only")
	}
	for _, name := range []strategy.Name{strategy.LeastLoaded, strategy.P2C, strategy.RoundRobin} {
		t.Run(string(name), func(t *testing.T) { stormRun(t, name, true, 300, time.Second) })
	}
}
