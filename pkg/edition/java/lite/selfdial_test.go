package lite_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// loAddrs returns the non-loopback addresses on lo that lite tests may bind
// (GATETEST_LO_ADDRS, 10.9.0.1-10.9.0.10 of the shared range), or skips.
func loAddrs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, a := range strings.Split(os.Getenv("GATETEST_LO_ADDRS"), ",") {
		ip, err := netip.ParseAddr(strings.TrimSpace(a))
		if err != nil || !ip.Is4() {
			continue
		}
		if b := ip.As4(); b[0] == 10 && b[1] == 9 && b[2] == 0 && b[3] >= 1 && b[3] <= 10 {
			out = append(out, ip.String())
		}
	}
	if len(out) == 0 {
		t.Skip("needs test addresses on lo: run scripts/test.sh")
	}
	return out
}

// sessionCount counts what a proxy did: connections accepted and closed, sessions
// joined per backend template, rejections per reason.
type sessionCount struct {
	mu       sync.Mutex
	accepted int
	closed   int
	joined   map[string]int // by BackendTemplate
	rejected map[string]int // by Reason
}

func newSessionCount() *sessionCount {
	return &sessionCount{joined: map[string]int{}, rejected: map[string]int{}}
}

func (c *sessionCount) Observe(e *lite.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case lite.EventAccepted:
		c.accepted++
	case lite.EventClosed:
		c.closed++
	case lite.EventJoined:
		c.joined[e.BackendTemplate]++
	case lite.EventRejected:
		c.rejected[e.Reason]++
	}
}

func (c *sessionCount) get() (accepted, closed int, joined, rejected map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, r := map[string]int{}, map[string]int{}
	for k, v := range c.joined {
		j[k] = v
	}
	for k, v := range c.rejected {
		r[k] = v
	}
	return c.accepted, c.closed, j, r
}

// settled waits until every accepted connection has closed and returns the counts.
func (c *sessionCount) settled(t *testing.T) (accepted int, joined, rejected map[string]int) {
	t.Helper()
	waitFor(t, "every accepted connection closed", 10*time.Second, func() bool {
		a, cl, _, _ := c.get()
		return a == cl
	})
	accepted, _, joined, rejected = c.get()
	return accepted, joined, rejected
}

// countAccepts accepts on ln until the test ends and hands each connection to
// serve on a goroutine; it counts the connections.
func countAccepts(t *testing.T, ln net.Listener, serve func(net.Conn)) *atomic.Int64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			wg.Go(func() { serve(c) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	return &n
}

// TestTemplateCannotDialTheProxyOnItsOwnAddress: with the proxy bound to every
// address (0.0.0.0), a template that expands to one of the host's non-loopback
// interface addresses on the proxy's port ('$1:<port>' with $1 = 10.9.0.1), or a
// template naming that address whose port the player picks ('10.9.0.1:$1', the
// players' port or the admin API's), must not make the proxy dial itself. Each such
// login gets the unavailable text, the proxy accepts no connection but the player's
// (no nested session) and the template backend serves no session. A status ping is
// refused the same way.
func TestTemplateCannotDialTheProxyOnItsOwnAddress(t *testing.T) {
	own := loAddrs(t)[0]
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	api, err := net.Listen("tcp", "0.0.0.0:0") // stands in for the admin API's listener
	if err != nil {
		t.Fatal(err)
	}
	apiAccepts := countAccepts(t, api, func(c net.Conn) { _ = c.Close() })
	apiPort := api.Addr().(*net.TCPAddr).Port
	hostTmpl := fmt.Sprintf("$1:%d", port)
	portTmpl := own + ":$1"
	count := newSessionCount()
	startProxy(t, oneRoute("*.example.com", hostTmpl).route("*.port.test", portTmpl).withTop("readTimeout: 5s").String()+
		fmt.Sprintf("api:\n  bind: '0.0.0.0:%d'\n", apiPort), proxyOpts{ln: ln, obs: count})
	player := net.JoinHostPort(own, fmt.Sprint(port))

	logins := []string{own + ".example.com", fmt.Sprint(port) + ".port.test", fmt.Sprint(apiPort) + ".port.test"}
	for _, host := range logins {
		c := dialProxy(t, player)
		c.send(handshake(765, host, wire.IntentLogin), loginStart("Steve"))
		text := c.disconnectText()
		t.Logf("%s: player got %s", host, text)
		if !strings.Contains(text, "unavailable") {
			t.Fatalf("%s: disconnect %s, want the unavailable text", host, text)
		}
		_ = c.Close()
	}
	if _, err := dialProxy(t, player).status(765, own+".example.com"); err == nil {
		t.Fatal("a status ping was answered through the proxy's own address")
	}

	accepted, joined, rejected := count.settled(t)
	nested := accepted - len(logins) - 1
	t.Logf("accepted %d (players %d), nested sessions %d, sessions for %q: %d, for %q: %d, rejected %v",
		accepted, len(logins)+1, nested, hostTmpl, joined[hostTmpl], portTmpl, joined[portTmpl], rejected)
	if nested != 0 || joined[hostTmpl] != 0 || joined[portTmpl] != 0 || apiAccepts.Load() != 0 {
		t.Fatalf("the proxy dialled itself: %d nested sessions, %d+%d template sessions, %d admin API connections",
			nested, joined[hostTmpl], joined[portTmpl], apiAccepts.Load())
	}
}

// TestLoopBackIntoTheProxyIsRefused: when a backend address leads back into the
// proxy in a way no address check sees (here a dialer that sends every dial to the
// proxy's own listener, as NAT or a DNS answer could), the connection that arrives
// from the proxy's own dial is refused without a reply: the player gets the
// unavailable text and no session nests.
func TestLoopBackIntoTheProxyIsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dns := &fakeDNS{hosts: map[string][]netip.Addr{"good": {netip.MustParseAddr("192.0.2.10")}}}
	dialer := &redirectDialer{to: ln.Addr().String()}
	count := newSessionCount()
	const tmpl = "$1:25565"
	startProxy(t, oneRoute("*.dyn.test", tmpl).String(), proxyOpts{ln: ln, obs: count, dialer: dialer, resolver: dns})

	c := dialProxy(t, ln.Addr().String())
	c.send(handshake(765, "good.dyn.test", wire.IntentLogin), loginStart("Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("disconnect %s, want the unavailable text", text)
	}
	accepted, joined, rejected := count.settled(t)
	t.Logf("accepted %d, joined %v, rejected %v, dialled %v", accepted, joined, rejected, dialer.dialled())
	if accepted != 2 || rejected[lite.ReasonLoop] != 1 || joined[tmpl] != 0 {
		t.Fatalf("accepted %d (want the player's and one looped dial), loop refusals %d (want 1), template sessions %d (want 0)",
			accepted, rejected[lite.ReasonLoop], joined[tmpl])
	}
}

// TestOtherRoutesLiteralHostExemptsNothing: a route that names 127.0.0.1 literally
// does not let another route's template reach loopback. '$1.$2.$3.$4:$5' filled with
// 127.0.0.1 and the port of a non-Minecraft service is refused: the player gets the
// unavailable text and the service is never dialled, so none of its bytes come back.
func TestOtherRoutesLiteralHostExemptsNothing(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 1))
	svc, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	svcAccepts := countAccepts(t, svc, func(c net.Conn) { // a chatty non-Minecraft service
		defer c.Close()
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, _ = c.Write(make([]byte, 1<<20))
	})
	_, svcPort, _ := net.SplitHostPort(svc.Addr().String())
	p := startProxy(t, oneRoute("lobby.test", b.addr).route("*.*.*.*.*.raw.test", "$1.$2.$3.$4:$5").String(), proxyOpts{resolver: &fakeDNS{}})

	c := dialProxy(t, p.addr)
	c.send(handshake(765, "127.0.0.1."+svcPort+".raw.test", wire.IntentLogin), loginStart("Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("disconnect %s, want the unavailable text", text)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, err := io.ReadAll(c.br)
	if len(rest) != 0 || (err != nil && !errors.Is(err, io.EOF) && !isReset(err)) {
		t.Fatalf("after the refusal: %d more bytes, %v", len(rest), err)
	}
	if n := svcAccepts.Load(); n != 0 {
		t.Fatalf("the loopback service was dialled %d times", n)
	}
	dialProxy(t, p.addr).login("lobby.test") // the literal route itself still works
	b.next(t)
}
