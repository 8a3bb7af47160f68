//go:build linux

package relay

import (
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRelayThroughput streams 256 KiB chunks over loopback: straight from writer
// to reader ("direct"), and through one relay hop (two more sockets) with the splicer
// or with io.Copy (the runtime's own splice, which keeps a pipe per idle direction).
// cpu-ns/MB is the whole process (writer and reader included), so the difference to
// direct is what the hop costs.
func BenchmarkRelayThroughput(b *testing.B) {
	const chunk = 256 << 10
	hops := []struct {
		name string
		hop  func(dst, src *net.TCPConn) (int64, error)
	}{
		{"direct", nil},
		{"splicer", func(dst, src *net.TCPConn) (int64, error) { return half(dst, src) }},
		{"io.Copy", func(dst, src *net.TCPConn) (int64, error) { return io.Copy(dst, src) }},
	}
	for _, h := range hops {
		b.Run(h.name, func(b *testing.B) {
			in, out := tcpPair(b)
			if h.hop != nil {
				var src, dst *net.TCPConn
				in, src = tcpPair(b)
				dst, out = tcpPair(b)
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, _ = h.hop(dst, src)
					_ = dst.CloseWrite()
				}()
				b.Cleanup(func() { <-done })
			}
			b.SetBytes(chunk)
			b.ReportAllocs()
			cpu := processCPU()
			go func() {
				buf := make([]byte, chunk)
				for range b.N {
					if _, err := in.Write(buf); err != nil {
						return
					}
				}
				_ = in.CloseWrite()
			}()
			n, err := io.CopyBuffer(io.Discard, readerOnly{out}, make([]byte, chunk))
			if err != nil || n != int64(b.N)*chunk {
				b.Fatalf("read %d bytes (%v), want %d", n, err, int64(b.N)*chunk)
			}
			// CPU time is what a shared machine cannot steal: wall-clock MB/s swings
			// with other load, the work per megabyte does not.
			b.ReportMetric(float64(processCPU()-cpu)/(float64(n)/1e6), "cpu-ns/MB")
		})
	}
}

// processCPU is this process's user and system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readerOnly hides WriterTo so the reader copies through its own buffer.
type readerOnly struct{ io.Reader }
