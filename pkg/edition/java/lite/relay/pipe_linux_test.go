//go:build linux

package relay

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// pipeUnderTest is player <-> [client ... Pipe ... backend] <-> server: four sockets,
// the middle two relayed by r.
type pipeUnderTest struct {
	player, server *net.TCPConn
	done           chan Result
}

func startPipe(t testing.TB, r *Relay, o Options) *pipeUnderTest {
	t.Helper()
	player, client := tcpPair(t)
	backend, server := tcpPair(t)
	p := &pipeUnderTest{player: player, server: server, done: make(chan Result, 1)}
	go func() {
		res := r.Pipe(client, backend, o)
		_ = client.Close()
		_ = backend.Close()
		p.done <- res
	}()
	return p
}

func (p *pipeUnderTest) wait(t testing.TB, within time.Duration) Result {
	t.Helper()
	select {
	case r := <-p.done:
		return r
	case <-time.After(within):
		t.Fatalf("pipe did not end within %v", within)
		return Result{}
	}
}

func TestPipeCopiesBothWaysByteExact(t *testing.T) {
	tests := []struct {
		name     string
		up, down int
		opts     Options
	}{
		{"chat-sized frames", 300, 900, Options{}},
		{"world download", 0, 2 << 20, Options{}},
		{"upload and download at once", 3 << 20, 3 << 20, Options{}},
		{"upload and download, not parked", 3 << 20, 3 << 20, Options{NoPark: true}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Relay
			p := startPipe(t, &r, tt.opts)
			wantUp, wantDown := seeded(uint64(2*i+1), tt.up), seeded(uint64(2*i+2), tt.down)
			gotUp := make(chan []byte, 1)
			go func() {
				go func() { _, _ = p.server.Write(wantDown) }()
				got, _ := io.ReadAll(p.server) // the player closes only after it has everything
				gotUp <- got
				_ = p.server.CloseWrite()
			}()
			go func() { _, _ = p.player.Write(wantUp) }()
			got := make([]byte, tt.down)
			if _, err := io.ReadFull(p.player, got); err != nil || !bytes.Equal(got, wantDown) {
				t.Fatalf("download: %v, exact %v", err, bytes.Equal(got, wantDown))
			}
			_ = p.player.CloseWrite()
			if up := <-gotUp; !bytes.Equal(up, wantUp) {
				t.Fatalf("upload: got %d bytes, want %d exact", len(up), len(wantUp))
			}
			res := p.wait(t, 10*time.Second)
			if res.First != Client || res.UpErr != nil || res.DownErr != nil ||
				res.Up != int64(tt.up) || res.Down != int64(tt.down) {
				t.Fatalf("result %+v; want the client first, up %d down %d, no errors", res, tt.up, tt.down)
			}
		})
	}
}

func TestPipeResultNamesTheSideThatEnded(t *testing.T) {
	tests := []struct {
		name   string
		end    func(p *pipeUnderTest)
		first  Side
		failed bool // the first direction ended with an error
		within time.Duration
	}{
		{"player quits", func(p *pipeUnderTest) {
			_, _ = p.player.Write([]byte("bye"))
			_ = p.player.CloseWrite()
			_, _ = io.ReadAll(p.server)
			_ = p.server.Close()
		}, Client, false, 2 * LingerAfterHalfClose},
		{"server kicks", func(p *pipeUnderTest) {
			_, _ = p.server.Write([]byte("kicked"))
			_ = p.server.CloseWrite()
			_, _ = io.ReadAll(p.player)
			_ = p.player.Close()
		}, Backend, false, 2 * LingerAfterHalfClose},
		{"server crashes", func(p *pipeUnderTest) {
			_ = p.server.SetLinger(0)
			_ = p.server.Close()
		}, Backend, true, LingerAfterHalfClose / 2},
		{"player's connection resets", func(p *pipeUnderTest) {
			_ = p.player.SetLinger(0)
			_ = p.player.Close()
		}, Client, true, LingerAfterHalfClose / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Relay
			p := startPipe(t, &r, Options{})
			tt.end(p)
			res := p.wait(t, tt.within)
			if res.First != tt.first || (res.FirstErr() != nil) != tt.failed {
				t.Fatalf("result %+v; want %v first, failed %v", res, tt.first, tt.failed)
			}
		})
	}
}

// chat moves msg both ways through p, so each direction borrowed a pipe once.
func chat(t testing.TB, p *pipeUnderTest, msg []byte) {
	t.Helper()
	got := make([]byte, len(msg))
	for _, hop := range [][2]*net.TCPConn{{p.player, p.server}, {p.server, p.player}} {
		if _, err := hop[0].Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(hop[1], got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("chat: %v, exact %v", err, bytes.Equal(got, msg))
		}
	}
}

func TestPipeIdleParksUpstreamAndHoldsNoPipe(t *testing.T) {
	const sessions = 200
	var r Relay
	msg := seeded(3, 4096)
	ps := make([]*pipeUnderTest, sessions)
	for i := range ps {
		ps[i] = startPipe(t, &r, Options{})
		chat(t, ps[i], msg)
	}
	// Idle: every up direction parked, no worker, one poller; every pipe back in the
	// pool (the down directions wait on Pipe's callers, which hold none either).
	var s Stats
	waitCond(t, "every pipe idle", func() bool {
		s = r.Stats()
		return s.Sessions == sessions && s.Parked == sessions && s.Workers == 0 && s.PipesOpen == s.PipesIdle
	})
	if s.Pollers != 1 || s.PipesOpen > maxIdlePipes {
		t.Fatalf("stats %+v: want one poller and at most %d pipes", s, maxIdlePipes)
	}
	for _, p := range ps {
		_ = p.player.Close()
		_ = p.server.Close()
		p.wait(t, 5*time.Second)
	}
	if s := r.Stats(); s.Sessions != 0 || s.Parked != 0 || s.Workers != 0 || s.Pollers != 0 {
		t.Fatalf("after every pipe ended: %+v, want nothing held", s)
	}
}

func TestPipeParkedDirectionWakesForEveryBurst(t *testing.T) {
	// A player sends a packet, waits for the answer, sends the next: between bursts the
	// client-to-backend direction parks, and each burst must wake it exactly once.
	const bursts = 300
	var r Relay
	p := startPipe(t, &r, Options{})
	go func() {
		_, _ = io.Copy(p.server, p.server) // echo until the player's FIN
		_ = p.server.CloseWrite()
	}()
	var sent int64
	for i := range bursts {
		msg := seeded(uint64(1000+i), 1+i*37%1500)
		if _, err := p.player.Write(msg); err != nil {
			t.Fatal(err)
		}
		sent += int64(len(msg))
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(p.player, got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("burst %d: %v, exact %v", i, err, bytes.Equal(got, msg))
		}
	}
	_ = p.player.CloseWrite()
	if rest, err := io.ReadAll(p.player); err != nil || len(rest) != 0 {
		t.Fatalf("after the last burst: %d bytes, %v; want EOF", len(rest), err)
	}
	res := p.wait(t, 5*time.Second)
	if res.First != Client || res.Up != sent || res.Down != sent || res.FirstErr() != nil {
		t.Fatalf("result %+v; want the client first, %d bytes each way", res, sent)
	}
}

func TestPipeCloseEndsParkedPipes(t *testing.T) {
	// Shutdown closes the proxy's sockets; a parked direction must notice.
	var r Relay
	player, client := tcpPair(t)
	backend, server := tcpPair(t)
	done := make(chan Result, 1)
	go func() { done <- r.Pipe(client, backend, Options{}) }()
	chat(t, &pipeUnderTest{player: player, server: server}, []byte("hello"))
	waitCond(t, "the up direction parked", func() bool { return r.Stats().Parked == 1 })
	_ = client.Close()
	_ = backend.Close()
	select {
	case res := <-done:
		if !errors.Is(res.DownErr, net.ErrClosed) {
			t.Fatalf("result %+v; want the closed connection's error", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pipe did not end after its connections were closed")
	}
}
