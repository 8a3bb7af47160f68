//go:build linux

package relay

import (
	"bytes"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// The ways a pipe runs: parked in a poller, or a goroutine per direction (the
// portable path, which every platform without epoll takes).
var pipeModes = []struct {
	name string
	opts Options
}{
	{"parked", Options{}},
	{"goroutines", Options{NoPark: true}},
}

// ends are the far ends of p: side's own (the player's for Client) and the other's.
func (p *pipeUnderTest) ends(side Side) (mine, peer *net.TCPConn) {
	if side == Backend {
		return p.server, p.player
	}
	return p.player, p.server
}

// forEachEnd runs f as a parallel subtest named "mode/side what" on a pipe of its
// own, for every pipe mode and either side.
func forEachEnd(t *testing.T, what string, f func(t *testing.T, p *pipeUnderTest, side Side)) {
	for _, m := range pipeModes {
		for _, side := range []Side{Client, Backend} {
			t.Run(m.name+"/"+side.String()+" "+what, func(t *testing.T) {
				t.Parallel()
				var r Relay
				f(t, startPipe(t, &r, m.opts), side)
			})
		}
	}
}

// readToEnd reads c until it fails or ends (within 5 s) and returns what it got and
// why it stopped: io.EOF for a FIN.
func readToEnd(t testing.TB, c *net.TCPConn) ([]byte, error) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got, err
		}
	}
}

// abortClose closes c with a reset, as a crashed or killed peer with unread bytes,
// or one that sets SO_LINGER 0, does.
func abortClose(t testing.TB, c *net.TCPConn) {
	t.Helper()
	if err := c.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
}

// TestResetReachesTheOtherSideAsReset: a side that resets its connection is seen as
// a reset on the other side, not as an orderly end (on main the relay closed the
// other side with a FIN, so a backend's crash read as a clean EOF to the player).
func TestResetReachesTheOtherSideAsReset(t *testing.T) {
	forEachEnd(t, "resets", func(t *testing.T, p *pipeUnderTest, resetter Side) {
		chat(t, p, []byte("keep-alive"))
		from, to := p.ends(resetter)
		_, _ = from.Write([]byte("last words"))
		abortClose(t, from)
		got, err := readToEnd(t, to)
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("the other side read %q then %v; want a reset", got, err)
		}
		if res := p.wait(t, LingerAfterHalfClose); res.First != resetter || res.FirstErr() == nil {
			t.Fatalf("result %+v; want the %v's failure first", res, resetter)
		}
	})
}

// TestLingerCutResetsThePeerWaitingForTheRest: after one side half-closes, the other
// direction has LingerAfterHalfClose to end; when it does not, the side that waits
// for the rest of that stream reads a reset after what did arrive, not EOF (on main a
// FIN: a truncated stream looked whole).
func TestLingerCutResetsThePeerWaitingForTheRest(t *testing.T) {
	forEachEnd(t, "half-closes", func(t *testing.T, p *pipeUnderTest, closer Side) {
		closing, open := p.ends(closer)
		if err := closing.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		if got, err := readToEnd(t, open); err != io.EOF || len(got) != 0 {
			t.Fatalf("the open side read %q then %v; want EOF", got, err)
		}
		// The open side sends part of its stream and never ends it.
		partial := []byte("part of a stream")
		if _, err := open.Write(partial); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got, err := readToEnd(t, closing)
		if !bytes.Equal(got, partial) || !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("the half-closed side read %q then %v; want %q then a reset", got, err, partial)
		}
		if el := time.Since(start); el < LingerAfterHalfClose/2 {
			t.Fatalf("cut after %v; want about %v", el, LingerAfterHalfClose)
		}
		res := p.wait(t, LingerAfterHalfClose)
		if res.First != closer || res.FirstErr() != nil {
			t.Fatalf("result %+v; want the %v's clean end first", res, closer)
		}
		// The side that kept sending got the whole of its incoming stream and a
		// FIN; what it sends now is refused with a reset.
		waitCond(t, "the open side's write to be reset", func() bool {
			_, err := open.Write([]byte("more"))
			return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
		})
	})
}

// TestOrderlyCloseEndsInFINBothWays: when both sides end their streams, each reads all
// the other sent and then EOF, before and after the relay closes its sockets: resets
// are only for cut streams.
func TestOrderlyCloseEndsInFINBothWays(t *testing.T) {
	forEachEnd(t, "ends first", func(t *testing.T, p *pipeUnderTest, first Side) {
		a, b := p.ends(first)
		_, _ = a.Write([]byte("bye"))
		_ = a.CloseWrite()
		if got, err := readToEnd(t, b); string(got) != "bye" || err != io.EOF {
			t.Fatalf("the second side read %q then %v; want \"bye\" then EOF", got, err)
		}
		_, _ = b.Write([]byte("bye too"))
		_ = b.CloseWrite()
		if got, err := readToEnd(t, a); string(got) != "bye too" || err != io.EOF {
			t.Fatalf("the first side read %q then %v; want \"bye too\" then EOF", got, err)
		}
		res := p.wait(t, LingerAfterHalfClose)
		if res.First != first || res.UpErr != nil || res.DownErr != nil {
			t.Fatalf("result %+v; want %v first, both clean", res, first)
		}
		for _, c := range []*net.TCPConn{a, b} { // the relay's sockets are closed now
			if got, err := readToEnd(t, c); len(got) != 0 || err != io.EOF {
				t.Fatalf("after the end a side read %q then %v; want EOF", got, err)
			}
		}
	})
}
