//go:build linux

package lite_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/handover"
)

// pairMover hands sessions to another instance in this process as the hand-over
// socket would: the new side gets descriptors of its own (the kernel duplicates them
// on the way), the old side closes its copies after Send.
type pairMover struct {
	to   *lite.Lite
	fail bool // refuse every session, as a new process that died would
}

func (m pairMover) Send(s *handover.Session, done func(error)) { done(m.send(s)) }

func (m pairMover) send(s *handover.Session) error {
	if m.fail {
		return errors.New("new process gone")
	}
	c := *s
	var err error
	if c.ClientFD, err = syscall.Dup(s.ClientFD); err != nil {
		return err
	}
	if c.BackendFD, err = syscall.Dup(s.BackendFD); err != nil {
		_ = syscall.Close(c.ClientFD)
		return err
	}
	return m.to.Adopt(&c)
}

// player is a logged-in session that sends sequence-numbered frames through the
// echo backend and checks that what comes back is exactly what it sent.
type player struct {
	c    *client
	sent bytes.Buffer
	mu   sync.Mutex
	seq  uint32
}

func (p *player) tick(t *testing.T) {
	var f [24]byte
	p.mu.Lock()
	p.seq++
	binary.BigEndian.PutUint32(f[:], p.seq)
	copy(f[4:], "sequence-numbered")
	p.sent.Write(f[:])
	p.mu.Unlock()
	if _, err := p.c.Write(f[:]); err != nil {
		t.Errorf("player write: %v", err)
	}
}

// check reads the echo of everything sent so far and compares it byte for byte.
func (p *player) check(t *testing.T, got *bytes.Buffer) {
	p.mu.Lock()
	want := append([]byte(nil), p.sent.Bytes()...)
	p.mu.Unlock()
	buf := make([]byte, len(want)-got.Len())
	_ = p.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(p.c.br, buf); err != nil {
		t.Fatalf("player read after %d bytes: %v", got.Len(), err)
	}
	got.Write(buf)
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("echo differs from what was sent (%d bytes)", len(want))
	}
}

// TestHandOffMovesLiveSessionsByteExact: players exchanging sequence-numbered frames
// move, live, to another instance, losing, repeating and reordering nothing and seeing
// no reset; a login that was mid-way at the hand-over finishes in the old instance
// and moves too; the new instance counts every moved player on the backend.
func TestHandOffMovesLiveSessionsByteExact(t *testing.T) {
	b := newBackend(t, statusJSON("up", 0, 20))
	yaml := oneRoute("*.example.com", b.addr).with("strategy: least-connections").withLite("shutdownGrace: 5s").quotasOff().String()
	ln, ln2 := sharedListener(t)
	old := startProxy(t, yaml, proxyOpts{ln: ln})
	players := make([]*player, 12)
	echoes := make([]bytes.Buffer, len(players))
	for i := range players {
		players[i] = &player{c: dialProxy(t, old.addr)}
		players[i].c.login("play.example.com")
	}
	midway := dialProxy(t, old.addr)
	pre := mctest.LoginPreamble(765, "play.example.com", "Alex")
	midway.send(pre[:5]) // the handshake is not in yet
	waitFor(t, "every player relayed", 5*time.Second, func() bool { return old.RelayStats().Sessions == len(players) })
	next := startProxy(t, yaml, proxyOpts{ln: ln2})

	stop, ticking := make(chan struct{}), &sync.WaitGroup{}
	tickAll(t, players, stop, ticking)
	old.HandOff(pairMover{to: next.Lite})
	midway.send(pre[5:])
	if got := midway.readN(len(pre)); !bytes.Equal(got, pre) {
		t.Fatalf("the mid-way login's echo differs")
	}
	if err := old.stop(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	ticking.Wait()
	for i, p := range players {
		p.check(t, &echoes[i])
		p.tick(t) // still flowing, through the new instance alone
		p.check(t, &echoes[i])
	}
	midway.send([]byte("after the move"))
	if got := midway.readN(len("after the move")); string(got) != "after the move" {
		t.Fatalf("mid-way login after the move: %q", got)
	}
	if s := next.RelayStats().Sessions; s != len(players)+1 {
		t.Fatalf("new instance relays %d sessions, want %d", s, len(players)+1)
	}
	for _, st := range next.Manager().Snapshot() {
		if st.Addr == b.addr && st.Active != int64(len(players)+1) {
			t.Fatalf("least-connections sees %d players on the backend, want %d", st.Active, len(players)+1)
		}
	}
	for _, p := range players { // before the new instance's grace: the players leave
		_ = p.c.Close()
	}
	_ = midway.Close()
	waitFor(t, "the moved sessions to end", 5*time.Second, func() bool { return next.RelayStats().Sessions == 0 })
}

// sharedListener is a listener and a second one on the same socket: the one the
// new process inherits.
func sharedListener(t *testing.T) (net.Listener, net.Listener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := ln.(*net.TCPListener).File()
	ln2, err := net.FileListener(lf)
	_ = lf.Close()
	if err != nil {
		t.Fatal(err)
	}
	return ln, ln2
}

// tickAll has every player send and check frames until stop closes.
func tickAll(t *testing.T, players []*player, stop <-chan struct{}, ticking *sync.WaitGroup) {
	for _, p := range players {
		ticking.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					p.tick(t)
				}
			}
		})
	}
}

// TestHandOffThatFailsKeepsEverySession: when the new process takes nothing, every
// session goes on in the old one, byte-exact, held bytes first.
func TestHandOffThatFailsKeepsEverySession(t *testing.T) {
	b := newBackend(t, statusJSON("up", 0, 20))
	old := startProxy(t, oneRoute("*.example.com", b.addr).String())
	p := &player{c: dialProxy(t, old.addr)}
	p.c.login("play.example.com")
	var echo bytes.Buffer
	p.tick(t)
	old.HandOff(pairMover{fail: true})
	p.tick(t)
	p.check(t, &echo)
	if s := old.RelayStats().Sessions; s != 1 {
		t.Fatalf("old instance relays %d sessions after a failed hand-over, want 1", s)
	}
	late := dialProxy(t, old.addr) // joins after the failure: relayed here as usual
	late.login("play.example.com")
	waitFor(t, "both relayed", 5*time.Second, func() bool { return old.RelayStats().Sessions == 2 })
}

// TestHandOffDuringAWakeHold: a login held while its route's target wakes, at the
// moment of the hand-over, joins once the server is up and moves, its wake hold with
// it: the new instance counts the session on the target.
func TestHandOffDuringAWakeHold(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = 300 * time.Millisecond
	old := wakeProxy(t, e, "25s", "10m", refusedAddr(t))
	next := wakeProxy(t, e, "25s", "10m", refusedAddr(t))
	waitAsleep(t, old, e.key)
	sent := heldLogin(rand.New(rand.NewPCG(35, 1)), 0)
	c := mctest.Dial(t, old.addr)
	if _, err := c.Write(sent); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the login held", 5*time.Second, func() bool { return old.HeldLogins() == 1 })
	old.HandOff(pairMover{to: next.Lite})
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len(sent))
	if _, err := io.ReadFull(c.R, got); err != nil || !bytes.Equal(got, sent) {
		t.Fatalf("held login after the hand-over: %v, %q", err, got)
	}
	waitFor(t, "the session moved", 5*time.Second, func() bool { return next.RelayStats().Sessions == 1 })
	if err := echoed(c, []byte("after the move")); err != nil {
		t.Fatal(err)
	}
	if n := sessions(next, e.key); n != 1 {
		t.Fatalf("the new instance counts %d sessions on the wake target, want the moved one", n)
	}
	_ = c.Close()
	waitFor(t, "the moved session to end", 5*time.Second, func() bool { return sessions(next, e.key) == 0 })
}
