package lite_test

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// faultyBackend is a backend that misbehaves in one way; addr is where to dial it.
type faultyBackend = backend

func newFaultyBackend(t testing.TB, mode mctest.Fault) *faultyBackend {
	t.Helper()
	return newBackendWith(t, mctest.Options{Fault: mode})
}

// faultConfig: short backend deadlines, a healthy second backend on one route and a
// fallback on another, so every fault can end in failover or fallback.
func faultConfig(bad, good string) string {
	return oneRoute("failover.example.com", bad, good).with("cachePingTTL: -1").
		route("fallback.example.com", bad).with("cachePingTTL: -1", "fallback: {motd: back soon}").
		route("alone.example.com", bad).withTop("connectionTimeout: 400ms", "readTimeout: 3s").String()
}

func TestBackendFaultsStatus(t *testing.T) {
	for _, mode := range []mctest.Fault{mctest.FaultRefused, mctest.FaultBlackhole, mctest.FaultAcceptClose, mctest.FaultHang} {
		t.Run(mode.String(), func(t *testing.T) {
			bad := newFaultyBackend(t, mode)
			good := newBackend(t, statusJSON("good", 1, 10))
			p := startProxy(t, faultConfig(bad.addr, good.addr))
			tests := []struct {
				host, want string
			}{
				{"failover.example.com", `"text":"good"`},
				{"fallback.example.com", "back soon"},
			}
			for _, tc := range tests {
				start := time.Now()
				body, err := dialProxy(t, p.addr).status(765, tc.host)
				if err != nil || !strings.Contains(body, tc.want) {
					t.Fatalf("%s: %q, %v; want %q", tc.host, body, err, tc.want)
				}
				// One backend attempt, bounded by connectionTimeout, then the answer.
				if d := time.Since(start); d > 400*time.Millisecond+time.Second {
					t.Fatalf("%s: answered after %v", tc.host, d)
				}
			}
			admissionSettled(t, p)
		})
	}
}

func TestBackendFaultsLogin(t *testing.T) {
	for _, mode := range []mctest.Fault{mctest.FaultRefused, mctest.FaultBlackhole} {
		t.Run(mode.String(), func(t *testing.T) {
			bad := newFaultyBackend(t, mode)
			good := newBackend(t, statusJSON("good", 1, 10))
			p := startProxy(t, faultConfig(bad.addr, good.addr))
			start := time.Now()
			loginAndLeave(dialProxy(t, p.addr), "failover.example.com")
			c := dialProxy(t, p.addr)
			c.send(handshake(765, "alone.example.com", wire.IntentLogin), loginStart("Steve"))
			if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
				t.Fatalf("disconnect text %q", text)
			}
			// Two dials that each fail within connectionTimeout.
			if d := time.Since(start); d > 2*400*time.Millisecond+time.Second {
				t.Fatalf("took %v", d)
			}
			_ = c.Close()
			admissionSettled(t, p)
		})
	}
}

// A backend that accepts and hangs up before any byte has not served the player: it is
// a failed attempt, so with no other backend the player gets the unavailable text
// promptly and every count is released.
func TestBackendAcceptThenCloseOnLogin(t *testing.T) {
	bad := newFaultyBackend(t, mctest.FaultAcceptClose)
	p := startProxy(t, faultConfig(bad.addr, bad.addr))
	start := time.Now()
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "alone.example.com", wire.IntentLogin), loginStart("Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("disconnect text %q, want the unavailable text", text)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("closed after %v", d)
	}
	admissionSettled(t, p)
}

// Health probes are exchanges the proxy makes on its own: one to a backend that
// accepts and never answers must end at the probe timeout and mark the backend down,
// so players go to the healthy one without paying for the hung one first.
func TestHungBackendFailsItsProbes(t *testing.T) {
	hung := newFaultyBackend(t, mctest.FaultHang)
	good := newBackend(t, statusJSON("good", 1, 10))
	p := startProxy(t, oneRoute("*", hung.addr, good.addr).withTop("connectionTimeout: 2s").
		withLite("healthCheck: {enabled: true, interval: 100ms, timeout: 80ms, rise: 1, fall: 1}").String())
	health := func(addr string) string {
		for _, b := range p.Manager().Snapshot() {
			if b.Addr == addr {
				return b.Health
			}
		}
		return ""
	}
	waitFor(t, "hung backend marked down by its probes", 5*time.Second, func() bool { return health(hung.addr) == "down" })
	start := time.Now()
	loginAndLeave(dialProxy(t, p.addr), "a.example.com")
	if d := time.Since(start); d > time.Second {
		t.Fatalf("login took %v: it waited on the hung backend", d)
	}
	if good.Logins() != 1 {
		t.Fatalf("good backend saw %d logins", good.Logins())
	}
	admissionSettled(t, p)
}
