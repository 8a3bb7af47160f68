//go:build linux

package relay

import (
	"bytes"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// adoptConn turns a descriptor a Moved gave away into a connection (the descriptor is
// closed: the connection has a duplicate of its own).
func adoptConn(t testing.TB, fd int) *net.TCPConn {
	t.Helper()
	f := os.NewFile(uintptr(fd), "moved")
	c, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn)
}

// streamTo writes b to c in chunks of uneven sizes, then returns.
func streamTo(c net.Conn, b []byte, errc chan<- error) {
	for off, step := 0, 1; off < len(b); step = step*7%4093 + 1 {
		n := min(step, len(b)-off)
		if _, err := c.Write(b[off : off+n]); err != nil {
			errc <- err
			return
		}
		off += n
	}
	errc <- nil
}

// TestDetachedSessionFlowsOnInAnotherRelay: a session let go of mid-stream, in both
// directions at once, and adopted by another relay loses, repeats and reorders no
// byte, including what the first relay had read but not yet written (the backend
// reads nothing until after the move, so the player's bytes are held then).
func TestDetachedSessionFlowsOnInAnotherRelay(t *testing.T) {
	for _, mode := range []string{"parked", "adopted unparked"} {
		t.Run(mode, func(t *testing.T) {
			var r1, r2 Relay
			player, client := tcpPair(t)
			backend, server := tcpPair(t)
			// The relay, not the kernel, holds what waits for the backend.
			_ = server.SetReadBuffer(32 << 10)
			_ = backend.SetWriteBuffer(32 << 10)
			wantUp, wantDown := seeded(11, 3<<20), seeded(12, 3<<20)
			first, second := make(chan Result, 1), make(chan Result, 1)
			r1.Start(client, backend, Options{}, func(res Result) { first <- res })
			errc := make(chan error, 2)
			go streamTo(player, wantUp, errc)
			go streamTo(server, wantDown, errc)
			gotDown := make(chan []byte, 1)
			go func() { b, _ := io.ReadAll(io.LimitReader(player, int64(len(wantDown)))); gotDown <- b }()
			waitCond(t, "the player's bytes to be held", func() bool { return r1.Stats().Waiting > 0 })
			if n := r1.Detach(); n != 1 {
				t.Fatalf("Detach let go of %d pipes, want 1", n)
			}
			res := <-first
			m := res.Moved
			if m == nil || len(m.Up) == 0 {
				t.Fatalf("moved %+v: want the held bytes of the up direction", m)
			}
			if s := r1.Stats(); s.Sessions != 0 || s.Parked != 0 || s.Waiting != 0 {
				t.Fatalf("first relay after the move: %+v, want nothing", s)
			}
			o := Options{Pending: Pending{Up: m.Up, Down: m.Down}, NoPark: mode != "parked"}
			r2.Start(adoptConn(t, m.ClientFD), adoptConn(t, m.BackendFD), o, func(res Result) { second <- res })
			gotUp, _ := io.ReadAll(io.LimitReader(server, int64(len(wantUp))))
			for range 2 {
				if err := <-errc; err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(gotUp, wantUp) || !bytes.Equal(<-gotDown, wantDown) {
				t.Fatalf("bytes differ after the move (up %d of %d)", len(gotUp), len(wantUp))
			}
			_ = player.CloseWrite()
			_ = server.CloseWrite()
			select {
			case end := <-second:
				if res.Up+end.Up != int64(len(wantUp)) || end.FirstErr() != nil {
					t.Fatalf("adopted pipe ended %+v after %d moved first", end, res.Up)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("adopted pipe did not end")
			}
		})
	}
}

// TestPipesStartedWhileDetachingAreLetGo: until Resume, a pipe that starts is let go
// of at once, with its sockets open.
func TestPipesStartedWhileDetachingAreLetGo(t *testing.T) {
	var r Relay
	r.Detach()
	player, client := tcpPair(t)
	backend, server := tcpPair(t)
	got := make(chan Result, 1)
	r.Start(client, backend, Options{}, func(res Result) { got <- res })
	res := <-got
	if res.Moved == nil {
		t.Fatalf("pipe started while detaching ended %+v, want it moved", res)
	}
	var again Relay
	p := &pipeUnderTest{player: player, server: server, done: make(chan Result, 1)}
	again.Start(adoptConn(t, res.Moved.ClientFD), adoptConn(t, res.Moved.BackendFD), Options{}, func(res Result) { p.done <- res })
	chat(t, p, []byte("still here"))
	r.Resume()
	c2, b2 := tcpPair(t)
	_, b3 := tcpPair(t)
	stay := make(chan Result, 1)
	r.Start(b2, b3, Options{}, func(res Result) { stay <- res })
	if s := r.Stats(); s.Sessions != 1 {
		t.Fatalf("after Resume the relay holds %d pipes, want the new one", s.Sessions)
	}
	_ = c2.Close()
	_ = player.Close()
	_ = server.Close()
	p.wait(t, 5*time.Second)
	r.Abort()
	<-stay
}
