//go:build linux

package relay

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"sync"
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
			wrote := make(chan error, 1)
			go func() {
				_, err := p.player.Write(wantUp)
				wrote <- err
			}()
			got := make([]byte, tt.down)
			if _, err := io.ReadFull(p.player, got); err != nil || !bytes.Equal(got, wantDown) {
				t.Fatalf("download: %v, exact %v", err, bytes.Equal(got, wantDown))
			}
			if err := <-wrote; err != nil {
				t.Fatalf("upload: %v", err)
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

func TestPipeIdleParksBothDirectionsAndHoldsNoPipe(t *testing.T) {
	const sessions = 200
	var r Relay
	msg := seeded(3, 4096)
	ps := make([]*pipeUnderTest, sessions)
	for i := range ps {
		ps[i] = startPipe(t, &r, Options{})
		chat(t, ps[i], msg)
	}
	// Idle: both directions of every pipe parked, no worker, one poller per
	// GOMAXPROCS; every pipe back in the pool.
	var s Stats
	waitCond(t, "every pipe idle", func() bool {
		s = r.Stats()
		return s.Sessions == sessions && s.Parked == 2*sessions && s.Workers == 0 && s.PipesOpen == s.PipesIdle
	})
	if want := min(sessions, runtime.GOMAXPROCS(0)); s.Pollers != want || s.PipesOpen > maxIdlePipes {
		t.Fatalf("stats %+v: want %d pollers and at most %d pipes", s, want, maxIdlePipes)
	}
	for _, p := range ps {
		_ = p.player.Close()
		_ = p.server.Close()
		p.wait(t, 5*time.Second)
	}
	// The last worker of a pipe runs its done callback, so it counts a moment longer.
	waitCond(t, "nothing held after every pipe ended", func() bool {
		s = r.Stats()
		return s.Sessions == 0 && s.Parked == 0 && s.Workers == 0 && s.Pollers == 0
	})
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

func TestPipeAbortEndsParkedPipes(t *testing.T) {
	// Shutdown closes the proxy's sockets, then aborts: parked directions have no
	// goroutine a Close would reach.
	var r Relay
	player, client := tcpPair(t)
	backend, server := tcpPair(t)
	done := make(chan Result, 1)
	go func() { done <- r.Pipe(client, backend, Options{}) }()
	chat(t, &pipeUnderTest{player: player, server: server}, []byte("hello"))
	waitCond(t, "both directions parked", func() bool { return r.Stats().Parked == 2 })
	_ = client.Close()
	_ = backend.Close()
	r.Abort()
	select {
	case res := <-done:
		if !errors.Is(res.DownErr, net.ErrClosed) || !errors.Is(res.UpErr, net.ErrClosed) {
			t.Fatalf("result %+v; want the closed connection's error", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pipe did not end after its connections were closed")
	}
}

// Shutdown's Abort can run while sessions are still being handed to the relay. It must
// not touch a pipe whose directions Start is still readying (the race detector sees
// it if it does), and a pipe it skipped for that reason aborts itself once started.
func TestAbortDuringStartsIsSafe(t *testing.T) {
	const pipes = 32
	var r Relay
	type pair struct{ client, backend *net.TCPConn }
	ps := make([]pair, pipes)
	for i := range ps {
		_, c := tcpPair(t)
		_, b := tcpPair(t)
		ps[i] = pair{c, b}
	}
	var ended sync.WaitGroup
	ended.Add(pipes)
	begin := make(chan struct{})
	var starts sync.WaitGroup
	for i := range ps {
		starts.Go(func() {
			<-begin
			r.Start(ps[i].client, ps[i].backend, Options{}, func(Result) { ended.Done() })
		})
	}
	stop := make(chan struct{})
	aborting := make(chan struct{})
	go func() { // Aborts that overlap the Starts
		defer close(aborting)
		for {
			select {
			case <-stop:
				return
			default:
				r.Abort()
				runtime.Gosched()
			}
		}
	}()
	close(begin)
	starts.Wait()
	close(stop)
	<-aborting
	r.Abort() // for the pipes that registered after the last one
	all := make(chan struct{})
	go func() { ended.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d pipes still running after Abort", r.Stats().Sessions)
	}
}
