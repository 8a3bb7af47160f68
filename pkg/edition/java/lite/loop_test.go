package lite_test

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
)

// Regression (issue 30, loops): a forwarder that re-dials from an address of its own
// (Docker's userland proxy, an SNAT load balancer, a hairpin) leads a backend dial
// back into the proxy where no address shows it: one login bounced until the
// connection caps filled. The login is known by its bytes while it is being sent, so
// it comes back once and is refused there: the player gets the unavailable text.
func TestLoginBroughtBackByAForwarderIsRefusedOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fwd := mctest.NewForwarder(t, "tcp", ln.Addr().String())
	count := newSessionCount()
	startProxy(t, oneRoute("play.example.com", fwd.Addr()).withTop("readTimeout: 3s").quotasOff("maxConnections: 40").String(),
		proxyOpts{ln: ln, obs: count})
	c := playerFrom(t, "127.0.0.2", ln.Addr().String())
	c.send(mctest.LoginPreamble(765, "play.example.com", "Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("player got %q, want the unavailable text", text)
	}
	_ = c.Close()
	accepted, _, rejected := count.settled(t)
	t.Logf("accepted %d connections for one login, loop refusals %d", accepted, rejected[lite.ReasonLoop])
	if accepted != 2 || rejected[lite.ReasonLoop] != 1 {
		t.Fatalf("accepted %d (want the player's and the one brought back), loop refusals %d (want 1)",
			accepted, rejected[lite.ReasonLoop])
	}
}

// Two replicas whose routes list each other (what a Service selecting the proxy's own
// pods does) bounced one login about 2,000 times in half a second. Now the login
// costs two dials: A to B, B back to A, refused there by its bytes.
func TestReplicasListingEachOtherCostOneLoginTwoDials(t *testing.T) {
	lnA, errA := net.Listen("tcp", "127.0.0.1:0")
	lnB, errB := net.Listen("tcp", "127.0.0.1:0")
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	a, b := newSessionCount(), newSessionCount()
	cfg := func(peer net.Listener) string {
		return oneRoute("play.example.com", peer.Addr().String()).withTop("readTimeout: 3s").quotasOff("maxConnections: 40").String()
	}
	startProxy(t, cfg(lnB), proxyOpts{ln: lnA, obs: a})
	startProxy(t, cfg(lnA), proxyOpts{ln: lnB, obs: b})
	c := playerFrom(t, "127.0.0.2", lnA.Addr().String())
	c.send(mctest.LoginPreamble(765, "play.example.com", "Steve"))
	if text := c.disconnectText(); !strings.Contains(text, "unavailable") {
		t.Fatalf("player got %q, want the unavailable text", text)
	}
	_ = c.Close()
	acceptedA, _, rejectedA := a.settled(t)
	acceptedB, _, _ := b.settled(t)
	t.Logf("A accepted %d, B accepted %d, A's loop refusals %d", acceptedA, acceptedB, rejectedA[lite.ReasonLoop])
	if dials := acceptedA + acceptedB - 1; dials > 3 || rejectedA[lite.ReasonLoop] != 1 {
		t.Fatalf("one login cost %d dials (want at most 3), A refused %d as a loop (want 1)", dials, rejectedA[lite.ReasonLoop])
	}
}

// playerFrom connects to the proxy at addr from the loopback address ip: a player on
// another host than the forwarders and replicas, which dial from 127.0.0.1.
func playerFrom(t *testing.T, ip, addr string) *client {
	t.Helper()
	conn, err := dialFrom(ip, addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", ip, err)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { _ = conn.Close() })
	mc := mctest.NewClient(conn)
	return &client{t: t, Client: mc, br: mc.R}
}

// The same player's bytes from the player's own address are that player again (a
// client that joins twice at once, bots that share a name), never a loop.
func TestSameLoginTwiceFromOnePlayerIsNoLoop(t *testing.T) {
	pre := mctest.LoginPreamble(765, "play.example.com", "Steve")
	release := make(chan struct{})
	b := mctest.NewScriptBackend(t, len(pre), func(c *net.TCPConn) {
		select { // both logins are in flight before either is answered
		case <-release:
		case <-time.After(10 * time.Second):
		}
		_, _ = c.Write(pre)
		_, _ = io.Copy(io.Discard, c)
	}).Addr()
	p := startProxy(t, oneRoute("play.example.com", b).quotasOff().String())
	first, second := dialProxy(t, p.addr), dialProxy(t, p.addr)
	first.send(pre)
	waitFor(t, "the first login sent on", 5*time.Second, func() bool { return unsettledOn(p, b) == 1 })
	second.send(pre)
	waitFor(t, "the second login sent on too", 5*time.Second, func() bool { return unsettledOn(p, b) == 2 })
	close(release)
	for _, c := range []*client{first, second} {
		if got := c.readN(len(pre)); string(got) != string(pre) {
			t.Fatalf("a login was refused: got %x", got)
		}
	}
}
