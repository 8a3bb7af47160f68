//go:build linux

package relay

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// A player on a slow link: the backend sends small packets faster than the player
// reads. The relay reads no further while bytes wait for the player (TCP holds the
// backend back), and every byte arrives in order once the player reads.
func TestParkedPacketsWaitForAPlayerWhoIsNotReading(t *testing.T) {
	const frames, size = 80_000, 100
	var r Relay
	p := startPipe(t, &r, Options{})
	_ = p.player.SetReadBuffer(64 << 10) // less than the 8 MB that follow, with the relay's send buffer
	sent := make(chan [32]byte, 1)
	go func() {
		h := sha256.New()
		for i := range frames {
			msg := seeded(uint64(i), size)
			h.Write(msg)
			if _, err := p.server.Write(msg); err != nil {
				break
			}
		}
		_ = p.server.CloseWrite()
		sent <- [32]byte(h.Sum(nil))
	}()
	waitCond(t, "the relay holding bytes for the player", func() bool { return r.Stats().Waiting == 1 })
	got := sha256.New()
	if n, err := io.Copy(got, p.player); err != nil || n != frames*size {
		t.Fatalf("player read %d of %d bytes: %v", n, frames*size, err)
	}
	if [32]byte(got.Sum(nil)) != <-sent {
		t.Fatal("the player got bytes that differ from what the backend sent")
	}
	_ = p.player.CloseWrite()
	res := p.wait(t, 5*time.Second)
	if res.First != Backend || res.Down != frames*size || res.UpErr != nil || res.DownErr != nil {
		t.Fatalf("result %+v; want the backend first and every byte down, cleanly", res)
	}
	if s := r.Stats(); s.Waiting != 0 {
		t.Fatalf("stats %+v after the end; want nothing waiting", s)
	}
}

// Without pipes (the descriptor budget spent) a burst goes through the poller's
// buffer instead, byte-exact.
func TestParkedBurstWithoutPipesUsesTheBuffer(t *testing.T) {
	const size = 2 << 20
	r := Relay{pool: &pipePool{create: func(bool) (*pipe, error) { return nil, syscall.EMFILE }}}
	p := startPipe(t, &r, Options{})
	down := seeded(7, size)
	go func() {
		_, _ = p.server.Write(down)
		_ = p.server.CloseWrite()
	}()
	got, err := io.ReadAll(p.player)
	if err != nil || !bytes.Equal(got, down) {
		t.Fatalf("player got %d of %d bytes (exact %v): %v", len(got), size, bytes.Equal(got, down), err)
	}
	_ = p.player.CloseWrite()
	if res := p.wait(t, 5*time.Second); res.Down != size || res.FirstErr() != nil {
		t.Fatalf("result %+v", res)
	}
}

// A backend that never closes after the player's FIN: the linger ends the session,
// and the player's clean end is what the result names.
func TestParkedLingerEndsAHalfClosedSession(t *testing.T) {
	var r Relay
	p := startPipe(t, &r, Options{})
	chat(t, p, []byte("hello"))
	_ = p.player.CloseWrite()
	if _, err := io.ReadAll(p.server); err != nil { // the FIN came through
		t.Fatal(err)
	}
	start := time.Now()
	res := p.wait(t, 5*LingerAfterHalfClose)
	if el := time.Since(start); el < LingerAfterHalfClose/2 {
		t.Errorf("session ended %v after the FIN; want the linger, %v", el, LingerAfterHalfClose)
	}
	if res.First != Client || res.UpErr != nil || !errors.Is(res.DownErr, os.ErrDeadlineExceeded) {
		t.Fatalf("result %+v; want the player's clean end and the linger's timeout", res)
	}
}

// One turn of a pipe moves at most burstChunks chunks, then queues the pipe for the
// poller's next round: a download that never runs dry cannot keep the poller from the
// other sockets its epoll set reports. Driven by hand (no poller goroutine): the source
// holds more than a turn's worth, the destination takes everything.
func TestParkedTurnIsBounded(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[1])
	_ = syscall.SetsockoptInt(fds[1], syscall.SOL_SOCKET, syscall.SO_SNDBUF, 1<<20)
	sink, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	const queued = (burstChunks + burstChunks/2) * smallRead // more than one turn's worth
	if n, err := syscall.Write(fds[1], make([]byte, queued)); err != nil || n < (burstChunks+1)*smallRead {
		t.Fatalf("queued %d bytes (%v); the socket's buffer is too small for the test", n, err)
	}
	// No pipes: every chunk is one read of smallRead bytes, so a turn's size is exact.
	r := &Relay{pool: &pipePool{create: func(bool) (*pipe, error) { return nil, syscall.EMFILE }}}
	p := &poller{buf: make([]byte, smallRead)}
	l := &link{r: r}
	l.up, l.down = dir{l: l, side: Client}, dir{l: l, side: Backend}
	l.lp.p, l.lp.fd = p, [2]int{fds[0], int(sink.Fd())}
	l.up.io.writable = true
	l.serve(sockClient, syscall.EPOLLIN)
	if want := int64(burstChunks * smallRead); l.up.n != want || len(p.again) != 1 || !l.lp.queued {
		t.Fatalf("one turn moved %d bytes (want %d), queued %v with %d waiting", l.up.n, want, l.lp.queued, len(p.again))
	}
	l.serve(sockNone, 0)
	if l.up.n <= int64(burstChunks*smallRead) || l.lp.queued {
		t.Fatalf("the next turn moved to %d bytes, queued %v", l.up.n, l.lp.queued)
	}
	_ = syscall.Close(fds[0])
}
