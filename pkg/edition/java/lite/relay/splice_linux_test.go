//go:build linux

package relay

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"go.minekube.com/gate/internal/mctest"
)

// tcpPair returns both ends of one loopback TCP connection.
func tcpPair(t testing.TB) (dialed, accepted *net.TCPConn) {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed, err = net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	accepted, err = ln.AcceptTCP()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = dialed.Close()
		_ = accepted.Close()
	})
	return dialed, accepted
}

// splicedPath is in -> [splicer] -> out: bytes written to in arrive at out.
type splicedPath struct {
	in, out *net.TCPConn
	done    chan spliceResult
	// src and dst are the sockets the splicer itself reads and writes.
	src, dst *net.TCPConn
}

type spliceResult struct {
	n   int64
	err error
}

func startSplice(t testing.TB, pool *pipePool) *splicedPath {
	t.Helper()
	in, src := tcpPair(t)
	dst, out := tcpPair(t)
	sp, err := newSplicer(dst, src, pool)
	if err != nil {
		t.Fatal(err)
	}
	p := &splicedPath{in: in, out: out, src: src, dst: dst, done: make(chan spliceResult, 1)}
	go func() {
		n, err := sp.run()
		_ = dst.CloseWrite() // what relay's endHalf does
		p.done <- spliceResult{n, err}
	}()
	return p
}

func (p *splicedPath) wait(t testing.TB) spliceResult {
	t.Helper()
	select {
	case r := <-p.done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("splicer did not return within 10s")
		return spliceResult{}
	}
}

// waitCond polls cond until it holds, for at most 5s.
func waitCond(t testing.TB, what string, cond func() bool) {
	t.Helper()
	mctest.WaitFor(t, what, 5*time.Second, cond)
}

func seeded(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestSplicerCopiesByteExact(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		chunk int // how the sender writes it
	}{
		{"one byte", 1, 1},
		{"a login start frame", 40, 40},
		{"exactly one pipe", pipeSize, pipeSize},
		{"four MiB in odd chunks", 4<<20 + 17, 1399},
		{"eight MiB in large writes", 8 << 20, 1 << 20},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := &pipePool{}
			p := startSplice(t, pool)
			want := seeded(uint64(i+1), tt.size)
			go func() {
				for b := want; len(b) > 0; b = b[min(tt.chunk, len(b)):] {
					if _, err := p.in.Write(b[:min(tt.chunk, len(b))]); err != nil {
						return
					}
				}
				_ = p.in.CloseWrite()
			}()
			got, err := io.ReadAll(p.out)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, want %d (equal prefix %d)", len(got), len(want), commonPrefix(got, want))
			}
			r := p.wait(t)
			if r.err != nil || r.n != int64(tt.size) {
				t.Fatalf("run = %d, %v; want %d, nil", r.n, r.err, tt.size)
			}
			if open, idle := pool.counts(); open != idle {
				t.Fatalf("pipes open %d, idle %d: a finished direction still holds one", open, idle)
			}
		})
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func TestSplicerReturnsPipeWhenIdle(t *testing.T) {
	pool := &pipePool{}
	const directions = 16
	paths := make([]*splicedPath, directions)
	for i := range paths {
		paths[i] = startSplice(t, pool)
	}
	// Every direction moves a message (so each borrowed a pipe), then goes quiet.
	for i, p := range paths {
		msg := seeded(uint64(100+i), 3000)
		if _, err := p.in.Write(msg); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(p.out, got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("direction %d: read %v, equal %v", i, err, bytes.Equal(got, msg))
		}
	}
	waitCond(t, "every idle direction to give its pipe back", func() bool {
		open, idle := pool.counts()
		return open == idle
	})
	if open, _ := pool.counts(); open < 1 || open > directions {
		t.Fatalf("pipes open = %d, want 1..%d", open, directions)
	}
	for _, p := range paths {
		_ = p.in.CloseWrite()
		if r := p.wait(t); r.err != nil {
			t.Fatalf("run: %v", r.err)
		}
	}
}

func TestSplicerWithoutPipesCopiesThroughBuffer(t *testing.T) {
	// At the descriptor limit no pipe can be made; the session must go on regardless.
	pool := &pipePool{create: func(bool) (*pipe, error) { return nil, syscall.EMFILE }}
	p := startSplice(t, pool)
	want := seeded(7, 300<<10)
	go func() {
		_, _ = p.in.Write(want)
		_ = p.in.CloseWrite()
	}()
	got, err := io.ReadAll(p.out)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (err %v), want %d exact", len(got), err, len(want))
	}
	if r := p.wait(t); r.err != nil || r.n != int64(len(want)) {
		t.Fatalf("run = %d, %v; want %d, nil", r.n, r.err, len(want))
	}
	if open, idle := pool.counts(); open != 0 || idle != 0 {
		t.Fatalf("pipes open %d idle %d, want none", open, idle)
	}
}

func TestSplicerErrors(t *testing.T) {
	tests := []struct {
		name  string
		cause func(p *splicedPath)
		check func(err error) bool
	}{
		{"source resets", func(p *splicedPath) {
			_ = p.in.SetLinger(0)
			_ = p.in.Close()
		}, isConnReset},
		{"destination resets", func(p *splicedPath) {
			_ = p.out.SetLinger(0)
			_ = p.out.Close()
			// The next bytes hit a reset peer.
			go func() {
				for range 64 {
					if _, err := p.in.Write(make([]byte, 64<<10)); err != nil {
						return
					}
				}
			}()
		}, isConnReset},
		{"read deadline (the linger after the other side ended)", func(p *splicedPath) {
			_ = p.src.SetReadDeadline(time.Now())
		}, func(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }},
		{"shutdown closes the source", func(p *splicedPath) {
			_ = p.src.Close()
		}, func(err error) bool { return errors.Is(err, net.ErrClosed) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := &pipePool{}
			p := startSplice(t, pool)
			tt.cause(p)
			r := p.wait(t)
			if r.err == nil || !tt.check(r.err) {
				t.Fatalf("run err = %v", r.err)
			}
			waitCond(t, "pipes back or closed", func() bool {
				open, idle := pool.counts()
				return open == idle
			})
		})
	}
}

func TestPipePoolKeepsOnlyBigPipes(t *testing.T) {
	pool := &pipePool{}
	lent := make([]*pipe, maxIdlePipes+3)
	for i := range lent {
		pp, err := pool.get()
		if err != nil {
			t.Fatal(err)
		}
		if want := i < maxIdlePipes; pp.big != want {
			t.Fatalf("pipe %d big = %v, want %v", i, pp.big, want)
		}
		lent[i] = pp
	}
	if size := pipeCapacity(t, lent[0]); size != pipeSize {
		t.Fatalf("big pipe holds %d bytes, want %d", size, pipeSize)
	}
	if size := pipeCapacity(t, lent[maxIdlePipes]); size != 64<<10 {
		t.Fatalf("default pipe holds %d bytes, want the kernel's 64 KiB", size)
	}
	dirty := lent[0]
	dirty.buffered = 5 // a direction that failed mid-chunk
	for _, pp := range lent {
		pool.put(pp)
	}
	// The dirty big pipe and the three default ones are closed; the rest wait.
	if open, idle := pool.counts(); open != maxIdlePipes-1 || idle != maxIdlePipes-1 {
		t.Fatalf("open %d idle %d, want %d each", open, idle, maxIdlePipes-1)
	}
	// A new big pipe replaces the dirty one; nothing reuses it.
	for range maxIdlePipes {
		pp, _ := pool.get()
		if pp == dirty || !pp.big {
			t.Fatalf("got pipe %p big %v; the dirty one is %p", pp, pp.big, dirty)
		}
		defer pp.close()
	}
}

func pipeCapacity(t *testing.T, pp *pipe) int {
	t.Helper()
	n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(pp.w), syscall.F_GETPIPE_SZ, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return int(n)
}

// inQueue is how many bytes wait unread in c's receive queue (SIOCINQ).
func inQueue(t *testing.T, c *net.TCPConn) int {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int32
	_ = raw.Control(func(fd uintptr) {
		const siocinq = 0x541B
		_, _, _ = syscall.Syscall(syscall.SYS_IOCTL, fd, siocinq, uintptr(unsafe.Pointer(&n)))
	})
	return int(n)
}

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
