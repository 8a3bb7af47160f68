package lite_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// healthYAML is one route of strat over backends with short deadlines (dial is the
// connectionTimeout), health checks off (the default), so only what players get
// teaches the proxy.
func healthYAML(strat strategy.Name, dial string, backends ...string) string {
	return oneRoute("*.example.com", backends...).with("strategy: "+string(strat)).
		withTop("connectionTimeout: "+dial, "readTimeout: 10s").withLite("firstResponseTimeout: 300ms").String()
}

// counts counts events of one kind under the keys the test picks for each.
type counts struct {
	kind lite.EventKind
	keys func(e *lite.Event) []string
	mu   sync.Mutex
	n    map[string]int
}

func (c *counts) Observe(e *lite.Event) {
	if e.Kind != c.kind {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	for _, k := range c.keys(e) {
		c.n[k]++
	}
}

func (c *counts) of(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// dials counts the proxy's dials per backend (EventDial), black-holed ones included;
// failedOf counts the failed ones.
type dials struct{ counts }

func newDials() *dials {
	return &dials{counts{kind: lite.EventDial, keys: func(e *lite.Event) []string {
		if e.Err != nil {
			return []string{e.Backend, "failed " + e.Backend}
		}
		return []string{e.Backend}
	}}}
}

func (d *dials) failedOf(addr string) int { return d.of("failed " + addr) }

// faultyAddr starts a backend with fault f and returns where to dial it.
func faultyAddr(t *testing.T, f mctest.Fault) string {
	t.Helper()
	switch f {
	case mctest.FaultRefused:
		return refusedAddr(t)
	case mctest.FaultBlackhole:
		return blackhole(t)
	}
	return newFaultyBackend(t, f).addr
}

// A backend that takes the handshake and then fails the player, whichever way, is a
// failed attempt: the player is failed over invisibly (the good backend's echo is the
// handshake and Login Start byte for byte), and with health checks off the bad backend
// costs at most EjectFailures attempts before it is ejected.
func TestLoginFailsOverInvisiblyOnEveryFault(t *testing.T) {
	faults := []mctest.Fault{mctest.FaultAcceptClose, mctest.FaultResetAfterHandshake, mctest.FaultHang,
		mctest.FaultBlackhole, mctest.FaultRefused}
	for _, f := range faults {
		t.Run(f.String(), func(t *testing.T) {
			bad := faultyAddr(t, f)
			good := newBackend(t, statusJSON("good", 0, 10))
			d := newDials()
			p := startProxy(t, healthYAML(strategy.Sequential, "300ms", bad, good.addr), proxyOpts{obs: d})
			for range 2 * strategy.EjectFailures {
				c := dialProxy(t, p.addr)
				c.login("play.example.com")
				_ = c.Close()
			}
			if n := d.of(bad); n > strategy.EjectFailures {
				t.Errorf("the %s backend cost %d attempts, want at most %d", f, n, strategy.EjectFailures)
			}
			if h := backendHealth(t, p, bad); h != strategy.HealthEjected {
				t.Errorf("the %s backend is %q after failing every login, want ejected", f, h)
			}
			admissionSettled(t, p)
		})
	}
}

func backendHealth(t *testing.T, p *proxy, addr string) string {
	t.Helper()
	for _, s := range p.Manager().Snapshot() {
		if s.Addr == addr {
			return s.Health
		}
	}
	return "no state"
}

// The client's bytes that arrive while the proxy waits for a backend's first byte go
// to that backend and, when it fails, to the next one too: the replay is byte-exact.
func TestClientBytesDuringTheWaitAreReplayed(t *testing.T) {
	bad := newFaultyBackend(t, mctest.FaultHang)
	good := newBackend(t, statusJSON("good", 0, 10))
	p := startProxy(t, healthYAML(strategy.Sequential, "1s", bad.addr, good.addr))
	c := dialProxy(t, p.addr)
	pre := append(handshake(765, "play.example.com", wire.IntentLogin), loginStart("Steve")...)
	more := wire.AppendFrame(nil, 0x02, []byte("plugin answer"))
	c.send(pre)
	waitFor(t, "the hung backend took the handshake", 5*time.Second, func() bool { return bad.BytesIn() >= int64(len(pre)) })
	c.send(more)
	want := append(append([]byte(nil), pre...), more...)
	if got := c.readN(len(want)); !bytes.Equal(got, want) {
		t.Fatalf("the good backend echoed %x, want the handshake, Login Start and the frame after %x", got, want)
	}
	if got := bad.BytesIn(); got != int64(len(want)) {
		t.Fatalf("the hung backend got %d bytes, want the %d the client sent while it waited", got, len(want))
	}
	_ = c.Close()
	admissionSettled(t, p)
}

// With every backend failing its logins the player gets the route's unavailable text,
// never a bare close.
func TestEveryBackendFailingGivesTheUnavailableText(t *testing.T) {
	a, b := newFaultyBackend(t, mctest.FaultAcceptClose), newFaultyBackend(t, mctest.FaultResetAfterHandshake)
	p := startProxy(t, healthYAML(strategy.RoundRobin, "300ms", a.addr, b.addr))
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "play.example.com", wire.IntentLogin), loginStart("Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("disconnect text %q, want the unavailable text", text)
	}
	admissionSettled(t, p)
}

// emfileDialer fails every dial the way an exhausted fd table does.
type emfileDialer struct{ n atomic.Int64 }

func (d *emfileDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	d.n.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", syscall.EMFILE)}
}

// When the proxy runs out of file descriptors, the player is told the proxy is full,
// the backends stay healthy, and the rejection is counted under its own reason.
func TestProxyOutOfFDsIsNotTheBackendsFault(t *testing.T) {
	good := newBackend(t, statusJSON("good", 0, 10))
	other := newBackend(t, statusJSON("other", 0, 10))
	reasons := &counts{kind: lite.EventRejected, keys: func(e *lite.Event) []string { return []string{e.Reason} }}
	p := startProxy(t, healthYAML(strategy.RoundRobin, "300ms", good.addr, other.addr),
		proxyOpts{dialer: &emfileDialer{}, obs: reasons})
	for range 2 * strategy.EjectFailures {
		c := dialProxy(t, p.addr)
		c.send(handshake(765, "play.example.com", wire.IntentLogin), loginStart("Steve"))
		if text := c.disconnectText(); !strings.Contains(text, "proxy is full") {
			t.Fatalf("disconnect text %q, want the proxy-full text", text)
		}
		_ = c.Close()
	}
	for _, addr := range []string{good.addr, other.addr} {
		if h := backendHealth(t, p, addr); h == strategy.HealthEjected {
			t.Fatalf("backend %s ejected for the proxy's own EMFILE", addr)
		}
	}
	waitFor(t, "proxy-full rejections counted", 5*time.Second, func() bool {
		return reasons.of(lite.ReasonProxyFull) == 2*strategy.EjectFailures
	})
	admissionSettled(t, p)
}

// With one backend of three dead, each strategy shares the players between the two
// survivors (issue 13: round-robin used to send 6 of 9 to the one listed after the
// dead one). Players stay connected, so least-connections sees them.
func TestFairAfterAFailureOverRealSockets(t *testing.T) {
	for _, name := range strategy.Names() {
		t.Run(string(name), func(t *testing.T) {
			a, c := newBackend(t, statusJSON("a", 0, 10)), newBackend(t, statusJSON("c", 0, 10))
			dead := refusedAddr(t)
			p := startProxy(t, healthYAML(name, "300ms", a.addr, dead, c.addr))
			for range 9 {
				cl := dialProxy(t, p.addr)
				cl.login("play.example.com")
			}
			na, nc := a.Logins(), c.Logins()
			switch name {
			case strategy.Sequential:
				if na != 9 {
					t.Fatalf("sequential: a %d, c %d; want all 9 on a, the first survivor", na, nc)
				}
			case strategy.Sticky:
				// The test's players share one UUID: one player, kept on one
				// survivor as far as the load bound allows. While the dead
				// backend is not yet ejected it counts in the mean, and the
				// bound (mean + StickySlack) stops that survivor at 7 of 9.
				if na+nc != 9 || max(na, nc) < 7 {
					t.Fatalf("sticky: a %d, c %d; want at least 7 of 9 on one survivor", na, nc)
				}
			case strategy.RoundRobin, strategy.LeastConnections:
				if d := na - nc; d < -1 || d > 1 {
					t.Fatalf("%s: a %d, c %d; want the survivors within one of each other", name, na, nc)
				}
			default:
				if na < 2 || nc < 2 {
					t.Fatalf("%s: a %d, c %d; want both survivors used", name, na, nc)
				}
			}
		})
	}
}

// A backend that never answers costs every strategy at most EjectFailures player
// attempts even when logins arrive faster than the dial timeout: attempts in flight
// are bounded per backend, and no player waits longer than one timeout for it.
func TestDyingBackendCostIsBoundedAtLoginRate(t *testing.T) {
	const rate, logins = 20, 30
	for _, f := range []mctest.Fault{mctest.FaultBlackhole, mctest.FaultHang} {
		for _, name := range strategy.Names() {
			t.Run(fmt.Sprintf("%s/%s", f, name), func(t *testing.T) {
				bad := faultyAddr(t, f)
				a, c := newBackend(t, statusJSON("a", 0, 10)), newBackend(t, statusJSON("c", 0, 10))
				d := newDials()
				p := startProxy(t, healthYAML(name, "300ms", a.addr, bad, c.addr), proxyOpts{obs: d})
				worst := loginsAtRate(t, p.addr, rate, logins)
				if n := d.of(bad); n > strategy.EjectFailures {
					t.Errorf("%d logins at %d/s paid %d attempts to the %s backend, want at most %d (spills %d)", logins, rate, n, f, strategy.EjectFailures, p.Manager().Spills())
				}
				if worst > 300*time.Millisecond+time.Second {
					t.Errorf("a player waited %v, want at most one timeout (300ms) more than a login", worst)
				}
			})
		}
	}
}

// loginsAtRate logs n players in at rate per second, each on its own goroutine, and
// returns the longest login. Every login must succeed.
func loginsAtRate(t *testing.T, addr string, rate, n int) time.Duration {
	t.Helper()
	var wg sync.WaitGroup
	var worst atomic.Int64
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for range n {
		<-tick.C
		wg.Go(func() {
			start := time.Now()
			if err := echoLogin(addr); err != nil {
				t.Error(err)
			}
			d := int64(time.Since(start))
			for old := worst.Load(); d > old && !worst.CompareAndSwap(old, d); old = worst.Load() {
			}
		})
	}
	wg.Wait()
	return time.Duration(worst.Load())
}

// echoLogin logs one player in through the proxy at addr and checks the backend's echo;
// it is safe off the test goroutine.
func echoLogin(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	pre := mctest.LoginPreamble(765, "play.example.com", "Steve")
	if _, err := c.Write(pre); err != nil {
		return err
	}
	got := make([]byte, len(pre))
	if _, err := io.ReadFull(c, got); err != nil {
		return fmt.Errorf("login: %w (got %x)", err, got)
	}
	if !bytes.Equal(got, pre) {
		return fmt.Errorf("echo %x, want %x", got, pre)
	}
	return nil
}

// A backend that flaps (up and down every 250ms: a crash loop) while players arrive
// through 1 and through 4 proxies: no player sees an error, and a proxy pays at most
// EjectFailures failed attempts per down phase (failures count in a row; a served
// player in an up phase breaks the run). Once ejected the backend has to prove itself
// with probes, and its ejection outlasts the test.
func TestFlappingBackendCostsNoPlayerAnError(t *testing.T) {
	for _, replicas := range []int{1, 4} {
		for _, name := range []strategy.Name{strategy.RoundRobin, strategy.LeastConnections, strategy.P2C} {
			t.Run(fmt.Sprintf("%d replicas/%s", replicas, name), func(t *testing.T) {
				a, c := newBackend(t, statusJSON("a", 0, 10)), newBackend(t, statusJSON("c", 0, 10))
				flap := refusedAddr(t)
				const period = 250 * time.Millisecond
				start := time.Now()
				stop := flapBackend(t, flap, period)
				var proxies []*proxy
				ds := make([]*dials, replicas)
				for i := range replicas {
					ds[i] = newDials()
					proxies = append(proxies, startProxy(t, healthYAML(name, "300ms", a.addr, flap, c.addr),
						proxyOpts{obs: ds[i], seed: uint64(i + 1)}))
				}
				var wg sync.WaitGroup
				tick := time.NewTicker(time.Second / 40)
				for i := range 60 {
					<-tick.C
					addr := proxies[i%replicas].addr
					wg.Go(func() {
						if err := echoLogin(addr); err != nil {
							t.Error(err)
						}
					})
				}
				tick.Stop()
				wg.Wait()
				stop()
				downs := int(time.Since(start)/(2*period)) + 1
				for i, d := range ds {
					if n := d.failedOf(flap); n > strategy.EjectFailures*downs {
						t.Errorf("proxy %d failed %d dials to the flapping backend in %d down phases, want at most %d a phase",
							i, n, downs, strategy.EjectFailures)
					}
				}
			})
		}
	}
}

// flapBackend serves a backend at addr for every other period until stop is called.
func flapBackend(t *testing.T, addr string, period time.Duration) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		var b *mctest.Backend
		for up := true; ; up = !up {
			if up {
				b = mctest.NewBackend(t, mctest.Options{Addr: addr})
			} else if b != nil {
				b.Close()
			}
			select {
			case <-done:
				if b != nil {
					b.Close()
				}
				return
			case <-tick.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
