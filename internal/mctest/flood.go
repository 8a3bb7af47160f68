package mctest

import (
	"net"
	"sync/atomic"
)

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
