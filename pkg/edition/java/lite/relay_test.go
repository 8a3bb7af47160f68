package lite_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/relay"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// scriptBackend is mctest's scripted backend with the address field these tests use.
type scriptBackend struct {
	*mctest.ScriptBackend
	addr string
}

func newScriptBackend(t testing.TB, preambleLen int, script func(c *net.TCPConn)) *scriptBackend {
	t.Helper()
	b := mctest.NewScriptBackend(t, preambleLen, script)
	return &scriptBackend{ScriptBackend: b, addr: b.Addr()}
}

// close stops accepting, closes every connection and waits for the scripts.
func (b *scriptBackend) close() { b.Close() }

// endings collects the EventEnded of every session.
type endings chan lite.Event

func (e endings) Observe(ev *lite.Event) {
	if ev.Kind == lite.EventEnded {
		e <- *ev
	}
}

func (e endings) next(t testing.TB, within time.Duration) lite.Event {
	t.Helper()
	select {
	case ev := <-e:
		return ev
	case <-time.After(within):
		t.Fatalf("no session ended within %v", within)
		return lite.Event{}
	}
}

func preamble() []byte {
	return append(handshake(765, "play.example.com", wire.IntentLogin), loginStart("Steve")...)
}

func seededBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, ^seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func relayProxy(t testing.TB, backendAddr string, obs lite.Observer) *proxy {
	t.Helper()
	return startProxy(t, oneRoute("*.example.com", backendAddr).withLite("shutdownGrace: 10ms").String(), proxyOpts{obs: obs})
}

// serverAnswer is a backend's first packet (Set Compression), so the player joins.
var serverAnswer = []byte{0x03, 0x03, 0x80, 0x02}

// joinScripted logs in through the proxy at addr with pre and reads the
// scripted backend's first answer (serverAnswer): the session is then relayed.
func joinScripted(t *testing.T, addr string, pre []byte) *net.TCPConn {
	t.Helper()
	c := dialTCP(t, addr)
	if _, err := c.Write(pre); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, len(serverAnswer))); err != nil {
		t.Fatal(err)
	}
	return c
}

func dialTCP(t testing.TB, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	return c.(*net.TCPConn)
}

func TestRelayCopiesBothWaysByteExact(t *testing.T) {
	tests := []struct {
		name     string
		up, down int
	}{
		{"chat-sized frames", 300, 900},
		{"world download", 0, 2 << 20},
		{"upload and download at once", 3 << 20, 3 << 20},
	}
	pre := preamble()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantUp, wantDown := seededBytes(uint64(2*i+1), tt.up), seededBytes(uint64(2*i+2), tt.down)
			gotUp := make(chan []byte, 1)
			b := newScriptBackend(t, len(pre), func(c *net.TCPConn) {
				go func() { _, _ = c.Write(wantDown) }()
				// The client closes only after it has everything, so this EOF comes last.
				got, _ := io.ReadAll(c)
				gotUp <- got
				_ = c.CloseWrite()
			})
			ends := make(endings, 1)
			p := relayProxy(t, b.addr, ends)
			c := dialTCP(t, p.addr)

			wrote := make(chan error, 1)
			go func() {
				_, err := c.Write(append(append([]byte(nil), pre...), wantUp...))
				wrote <- err
			}()
			got := make([]byte, tt.down)
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, wantDown) {
				t.Fatalf("download: %v, exact %v", err, bytes.Equal(got, wantDown))
			}
			if err := <-wrote; err != nil {
				t.Fatalf("upload: %v", err)
			}
			_ = c.CloseWrite()
			if up := <-gotUp; !bytes.Equal(up, wantUp) {
				t.Fatalf("upload: got %d bytes, want %d exact", len(up), len(wantUp))
			}
			if rest, err := io.ReadAll(c); err != nil || len(rest) != 0 {
				t.Fatalf("after download: %d more bytes, err %v; want clean EOF", len(rest), err)
			}
			ev := ends.next(t, 10*time.Second)
			if ev.Reason != lite.ReasonClientClosed || ev.BytesUp != int64(len(pre)+tt.up) || ev.BytesDown != int64(tt.down) {
				t.Fatalf("ended %s up %d down %d; want %s up %d down %d", ev.Reason, ev.BytesUp, ev.BytesDown,
					lite.ReasonClientClosed, len(pre)+tt.up, tt.down)
			}
		})
	}
}

// relayEnd is one way a relayed session ends: what the backend does after its first
// answer and what the player does, and the end the relay must report.
type relayEnd struct {
	name string
	// backend runs after the preamble and the answer; hold is open until the subtest
	// ends, so that only the relay itself can end a session that waits on it.
	backend func(c *net.TCPConn, hold <-chan struct{})
	client  func(t *testing.T, c *net.TCPConn)
	reason  string
	up      int64
	down    int64 // besides serverAnswer
	// within bounds when the session must have ended: an error ends both directions
	// at once, well inside the linger a clean end grants.
	within time.Duration
}

var (
	preambleLen        = int64(len(preamble()))
	kick               = []byte("kicked: server restarting")
	cleanEnd, errorEnd = 2 * relay.LingerAfterHalfClose, relay.LingerAfterHalfClose / 2
	relayEnds          = []relayEnd{
		{
			name: "player quits",
			backend: func(c *net.TCPConn, _ <-chan struct{}) {
				_, _ = io.Copy(io.Discard, c) // until the player's FIN
			},
			client: func(t *testing.T, c *net.TCPConn) {
				_, _ = c.Write([]byte("bye"))
				_ = c.CloseWrite()
				if rest, err := io.ReadAll(c); err != nil || len(rest) != 0 {
					t.Errorf("player read %q, %v; want EOF", rest, err)
				}
			},
			reason: lite.ReasonClientClosed, up: preambleLen + 3, within: cleanEnd,
		},
		{
			name: "server kicks",
			backend: func(c *net.TCPConn, _ <-chan struct{}) {
				_, _ = c.Write(kick)
			},
			client: func(t *testing.T, c *net.TCPConn) {
				if got, err := io.ReadAll(c); err != nil || !bytes.Equal(got, kick) {
					t.Errorf("player read %q, %v; want the kick then EOF", got, err)
				}
				_ = c.Close() // as the game does once it reads the end
			},
			reason: lite.ReasonBackendClosed, up: preambleLen, down: int64(len(kick)), within: cleanEnd,
		},
		{
			name: "server crashes",
			backend: func(c *net.TCPConn, _ <-chan struct{}) {
				_ = c.SetLinger(0) // close sends RST
			},
			client: func(t *testing.T, c *net.TCPConn) {
				// FIN or RST, at once: the player must not hang on a dead server. The
				// player keeps its socket open: the relay must end regardless.
				if n, _ := c.Read(make([]byte, 1)); n != 0 {
					t.Errorf("player read %d bytes, want the end", n)
				}
			},
			reason: lite.ReasonError, up: preambleLen, within: errorEnd,
		},
		{
			name: "player's connection resets",
			backend: func(c *net.TCPConn, hold <-chan struct{}) {
				// The server never closes by itself: only the relay ending can free it.
				_, _ = io.Copy(io.Discard, c)
				<-hold
			},
			client: func(t *testing.T, c *net.TCPConn) {
				_ = c.SetLinger(0)
				_ = c.Close()
			},
			reason: lite.ReasonError, up: preambleLen, within: errorEnd,
		},
	}
)

func TestRelayEndReasons(t *testing.T) {
	pre := preamble()
	for _, tt := range relayEnds {
		t.Run(tt.name, func(t *testing.T) {
			// The backend answers first, as a server does, so the player is joined and
			// the relay runs.
			hold := make(chan struct{})
			b := newScriptBackend(t, len(pre), func(c *net.TCPConn) { _, _ = c.Write(serverAnswer); tt.backend(c, hold) })
			t.Cleanup(func() { close(hold) }) // runs before the backend's cleanup
			ends := make(endings, 1)
			p := relayProxy(t, b.addr, ends)
			c := joinScripted(t, p.addr, pre)
			tt.client(t, c)
			ev := ends.next(t, tt.within)
			if down := tt.down + int64(len(serverAnswer)); ev.Reason != tt.reason || ev.BytesUp != tt.up || ev.BytesDown != down {
				t.Fatalf("ended %s up %d down %d; want %s up %d down %d",
					ev.Reason, ev.BytesUp, ev.BytesDown, tt.reason, tt.up, down)
			}
		})
	}
}

func TestRelayManyPlayersSendingAtOnce(t *testing.T) {
	// Players send pipelined packets at the same time: wake-ups arrive in batches and
	// while directions are being served, and every byte must come back in order.
	const players, packets = 16, 200
	pre := preamble()
	b := newScriptBackend(t, len(pre), func(c *net.TCPConn) {
		_, _ = io.Copy(c, c) // echo
	})
	p := relayProxy(t, b.addr, nil)
	errs := make(chan error, players)
	var wg sync.WaitGroup
	for i := range players {
		c := dialTCP(t, p.addr)
		wg.Go(func() {
			var want []byte
			go func() {
				_, _ = c.Write(pre)
				for j := range packets {
					if _, err := c.Write(seededBytes(uint64(i*packets+j), 1+(i*31+j*7)%700)); err != nil {
						return
					}
				}
			}()
			for j := range packets {
				want = append(want, seededBytes(uint64(i*packets+j), 1+(i*31+j*7)%700)...)
			}
			got := make([]byte, len(want))
			_, err := io.ReadFull(c, got)
			if err == nil && !bytes.Equal(got, want) {
				err = fmt.Errorf("player %d: echo differs at byte %d", i, firstDiff(got, want))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
