package mctest

import (
	"io"
	"net"
	"sync/atomic"
)

// CopyPlain copies r to w through a buffer of size bytes until either fails. A
// plain loop, not io.Copy: that would splice and hold a kernel pipe per session,
// and a load test with thousands of sessions runs out of them.
func CopyPlain(w io.Writer, r io.Reader, size int) {
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Flood writes to c until a write fails, counting in written what the kernel
// took; the channel closes when it stops. Tests use it as a player uploading
// as fast as it can.
func Flood(c net.Conn, written *atomic.Int64) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := make([]byte, 64<<10)
		for {
			n, err := c.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	return done
}
