//go:build linux

package lite_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/relay"
)

// openFDs counts this process's open file descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents) - 1 // ReadDir's own descriptor on the directory
}

// socketsOn counts this process's descriptors that are connected TCP sockets with a
// local or remote port in ports. Attributing sockets by port keeps the count exact
// while other tests' connections come and go.
func socketsOn(t testing.TB, ports ...string) int {
	t.Helper()
	inodes := tcpInodes(t, ports)
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue // closed meanwhile (ReadDir's own descriptor, for one)
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(ino, "]")] {
			n++
		}
	}
	return n
}

// tcpInodes returns the inodes of non-listening TCP sockets whose local or remote
// port (hex in /proc/net/tcp) is one of ports.
func tcpInodes(t testing.TB, ports []string) map[string]bool {
	t.Helper()
	want := map[string]bool{}
	for _, p := range ports {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprintf("%04X", n)] = true
	}
	out := map[string]bool{}
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			const listen = "0A"
			if len(f) < 10 || f[3] == listen {
				continue
			}
			_, lport, _ := strings.Cut(f[1], ":")
			_, rport, _ := strings.Cut(f[2], ":")
			if want[lport] || want[rport] {
				out[f[9]] = true
			}
		}
	}
	return out
}

func portOf(t testing.TB, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// chatBackend answers every session with one message, reads one back, then idles
// on a blocking read (one goroutine per connection) until the connection ends.
func chatBackend(t testing.TB, preambleLen int, msg []byte) *scriptBackend {
	return newScriptBackend(t, preambleLen, func(c *net.TCPConn) {
		if _, err := c.Write(msg); err != nil {
			return
		}
		if _, err := io.ReadFull(c, make([]byte, len(msg))); err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, c)
	})
}

// openChattedSessions opens n sessions that each moved msg both ways, so each direction
// borrowed a pipe at least once.
func openChattedSessions(t testing.TB, addr string, n int, msg []byte) []*net.TCPConn {
	t.Helper()
	pre := preamble()
	conns := make([]*net.TCPConn, n)
	for i := range conns {
		c := dialTCP(t, addr)
		if _, err := c.Write(pre); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("session %d: read %v, exact %v", i, err, bytes.Equal(got, msg))
		}
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	return conns
}

func TestRelayIdleSessionHoldsTwoSocketsAndNoPipe(t *testing.T) {
	const sessions = 200
	msg := seededBytes(3, 4096)
	b := chatBackend(t, len(preamble()), msg)
	p := relayProxy(t, b.addr, nil)

	waitFor(t, "no pipe lent before the sessions", 5*time.Second, func() bool {
		s := p.RelayStats()
		return s.PipesOpen == s.PipesIdle
	})
	openChattedSessions(t, p.addr, sessions, msg)
	// Per session the process holds 4 sockets: the test's client and backend ends
	// and the proxy's two (client, backend). The proxy's relay parks both directions
	// with no goroutine (the session's own ended at the hand-off). Shared by all
	// sessions: the relay's pollers (one goroutine and one epoll descriptor per
	// GOMAXPROCS) and the pool's idle pipes.
	var st relay.Stats
	waitFor(t, "every session idle with its pipes returned", 10*time.Second, func() bool {
		st = p.RelayStats()
		return st.Sessions == sessions && st.Parked == 2*sessions && st.Workers == 0 && st.PipesOpen == st.PipesIdle
	})
	if sockets := socketsOn(t, portOf(t, p.addr), portOf(t, b.addr)); sockets != 4*sessions {
		t.Fatalf("%d sessions hold %d sockets, want %d (4 per session)", sessions, sockets, 4*sessions)
	}
	if want := min(sessions, runtime.GOMAXPROCS(0)); st.Pollers != want || st.PipesOpen > 16 {
		t.Fatalf("relay %+v for %d idle sessions: want %d pollers and at most the pool's 16 pipes", st, sessions, want)
	}
}

func TestRelayShutdownClosesEverySession(t *testing.T) {
	const sessions = 20
	msg := seededBytes(4, 512)
	b := chatBackend(t, len(preamble()), msg)
	ends := make(endings, sessions)
	p := relayProxy(t, b.addr, ends)
	fds := openFDs(t)
	ignore := goleak.IgnoreCurrent()

	conns := openChattedSessions(t, p.addr, sessions, msg)
	if err := p.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	for range sessions {
		if ev := ends.next(t, 5*time.Second); ev.Reason != lite.ReasonShutdown {
			t.Fatalf("session ended with %q, want %q", ev.Reason, lite.ReasonShutdown)
		}
	}
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("session %d: read %d bytes, %v; want the proxy's close", i, n, err)
		}
		_ = c.Close()
	}
	b.close()
	// The worker that ended the last session is still returning from its completion.
	waitFor(t, "the relay to hold nothing", 5*time.Second, func() bool {
		st := p.RelayStats()
		return st.Sessions == 0 && st.Parked == 0 && st.Workers == 0 && st.Pollers == 0
	})
	// The proxy's listener is gone too, so fewer descriptors than before is right.
	if got := openFDs(t); got > fds {
		t.Fatalf("%d descriptors after shutdown, %d before the sessions", got, fds)
	}
	goleak.VerifyNone(t, ignore)
}
