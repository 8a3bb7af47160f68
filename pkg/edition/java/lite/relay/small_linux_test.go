//go:build linux

package relay

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// readExact reads n bytes from c (after skipping skip) on a goroutine; the channel
// gets what it read or the error.
func readExact(c *net.TCPConn, skip, n int) <-chan []byte {
	ch := make(chan []byte, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.CopyN(io.Discard, c, int64(skip)); err != nil {
			ch <- nil
			return
		}
		got := make([]byte, n)
		if _, err := io.ReadFull(c, got); err != nil {
			got = nil
		}
		ch <- got
	}()
	return ch
}

func TestSplicerStepSmall(t *testing.T) {
	tests := []struct {
		name  string
		size  int  // bytes the peer sends before the step
		eof   bool // the peer half-closes after them
		full  bool // the destination takes nothing before the step
		first stepResult
	}{
		{"nothing to read", 0, false, false, stepIdle},
		{"a packet: one read, one write", 64, false, false, stepMoved},
		{"a read that fills the buffer exactly", smallRead, false, false, stepFull},
		{"a burst: the buffer, then splice, in order", 3*smallRead + 4321, false, false, stepFull},
		{"end of stream", 0, true, false, stepEOF},
		{"destination full: the rest waits for a blocking step", smallRead, false, true, stepBlocked},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, src := tcpPair(t)
			dst, out := tcpPair(t)
			sp, err := newSplicer(dst, src, &pipePool{})
			if err != nil {
				t.Fatal(err)
			}
			defer sp.release()
			var before int
			if tt.full {
				// Fixed buffers: autotuning would grow them and take more after the fill.
				_ = dst.SetWriteBuffer(16 << 10)
				_ = out.SetReadBuffer(16 << 10)
				before = fillUp(t, dst)
			}
			msg := seeded(uint64(70+i), tt.size)
			if _, err := in.Write(msg); err != nil {
				t.Fatal(err)
			}
			if tt.eof {
				_ = in.CloseWrite()
			}
			want := min(len(msg), smallRead)
			waitCond(t, "the bytes to reach the proxy's socket", func() bool { return inQueue(t, src) >= want })
			s := newSmallIO()
			r, err := sp.stepSmall(s)
			if tt.eof {
				// The FIN is not in SIOCINQ: look until it has arrived.
				waitCond(t, "the FIN", func() bool {
					if r == stepIdle && err == nil {
						r, err = sp.stepSmall(s)
					}
					return r != stepIdle || err != nil
				})
			}
			if r != tt.first || err != nil {
				t.Fatalf("stepSmall = %d, %v; want %d", r, err, tt.first)
			}
			got := readExact(out, before, len(msg)) // after the step: it frees dst
			if r == stepMoved && sp.written != int64(len(msg)) {
				t.Fatalf("a packet step wrote %d of %d bytes", sp.written, len(msg))
			}
			if r == stepBlocked && !sp.pend {
				t.Fatal("a blocked small step kept no bytes for the next step")
			}
			// Whatever is left, blocking steps move it; every byte arrives, in order.
			for sp.written < int64(len(msg)) {
				if r, err := sp.step(true); r != stepMoved || err != nil {
					t.Fatalf("step = %d, %v after %d of %d bytes", r, err, sp.written, len(msg))
				}
			}
			if sp.pend || sp.buf != nil {
				t.Fatal("the stashed bytes' buffer was not given back once written")
			}
			if b := <-got; !bytes.Equal(b, msg) {
				t.Fatalf("destination got %d bytes, not the %d sent, exact", len(b), len(msg))
			}
		})
	}
}

// recordingStall is a staller that sets a short write deadline, as parking does with
// StallTimeout, and counts its calls.
type recordingStall struct {
	dst    *net.TCPConn
	wait   time.Duration
	armed  atomic.Int32
	disarm atomic.Int32
}

func (s *recordingStall) armStall() bool {
	s.armed.Add(1)
	_ = s.dst.SetWriteDeadline(time.Now().Add(s.wait))
	return true
}

func (s *recordingStall) disarmStall() { s.disarm.Add(1) }

// The bytes a small step could not write wait under the same stall bound as a
// spliced chunk: the blocking step that writes them arms it at the first EAGAIN, and
// a backend that takes nothing ends the direction as stalled.
func TestSplicerStashedBytesKeepTheStallBound(t *testing.T) {
	in, src := tcpPair(t)
	dst, peer := tcpPair(t) // the peer never reads
	sp, err := newSplicer(dst, src, &pipePool{})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.release()
	st := &recordingStall{dst: dst, wait: 200 * time.Millisecond}
	sp.stall = st
	_ = dst.SetWriteBuffer(16 << 10)
	_ = peer.SetReadBuffer(16 << 10)
	fillUp(t, dst)
	if _, err := in.Write(seeded(90, smallRead)); err != nil {
		t.Fatal(err)
	}
	waitCond(t, "the packet to reach the proxy's socket", func() bool { return inQueue(t, src) == smallRead })
	if r, err := sp.stepSmall(newSmallIO()); r != stepBlocked || err != nil {
		t.Fatalf("stepSmall = %d, %v; want stepBlocked", r, err)
	}
	start := time.Now()
	r, err := sp.step(true)
	if r != stepFailed || !errors.Is(err, os.ErrDeadlineExceeded) || !sp.stalled {
		t.Fatalf("step = %d, %v (stalled %v); want the stall deadline", r, err, sp.stalled)
	}
	if st.armed.Load() != 1 || st.disarm.Load() != 1 {
		t.Fatalf("stall armed %d times, disarmed %d; want once each", st.armed.Load(), st.disarm.Load())
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("the stalled write took %v to end", el)
	}
}

// A packet and the FIN right behind it can arrive as one edge: the short read there
// must not be taken for the socket running dry, or the FIN is never seen and the
// session waits out the other side's linger. Many pipes, as the two may also come as
// two edges.
func TestPipeSeesAFINThatCameWithTheLastPacket(t *testing.T) {
	const pipes = 20
	var r Relay
	for i := range pipes {
		p := startPipe(t, &r, Options{})
		msg := seeded(uint64(100+i), 64)
		if _, err := p.player.Write(msg); err != nil {
			t.Fatal(err)
		}
		_ = p.player.CloseWrite()
		_ = p.server.SetReadDeadline(time.Now().Add(LingerAfterHalfClose / 2))
		got, err := io.ReadAll(p.server) // EOF only if the relay passed the FIN on
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("pipe %d: backend read %d bytes then %v; want the packet and EOF", i, len(got), err)
		}
		_ = p.server.CloseWrite()
		if res := p.wait(t, 10*time.Second); res.UpErr != nil || res.DownErr != nil || res.Up != 64 {
			t.Fatalf("pipe %d: result %+v", i, res)
		}
	}
}

// Packets and bursts in one stream, each direction: the small reads and the spliced
// bursts take turns and every byte arrives in order.
func TestPipeMixesPacketsAndBurstsInOrder(t *testing.T) {
	var r Relay
	p := startPipe(t, &r, Options{})
	sizes := []int{17, 64, smallRead, 900, smallRead + 1, 3, 200 << 10, 64, smallRead - 1, 1 << 20, 5}
	var want []byte
	for i, n := range sizes {
		want = append(want, seeded(uint64(200+i), n)...)
	}
	got := readExact(p.server, 0, len(want))
	off := 0
	for _, n := range sizes {
		if _, err := p.player.Write(want[off : off+n]); err != nil {
			t.Fatal(err)
		}
		off += n
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("backend got %d bytes, not the %d sent, exact", len(b), len(want))
	}
	_ = p.player.CloseWrite()
	_ = p.server.CloseWrite()
	if res := p.wait(t, 10*time.Second); res.UpErr != nil || res.Up != int64(len(want)) {
		t.Fatalf("result %+v", res)
	}
}
