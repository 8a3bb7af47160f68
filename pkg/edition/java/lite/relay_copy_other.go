//go:build !linux

package lite

import (
	"io"
	"net"
)

// relayHalf copies src to dst until src ends. Off Linux there is no splice(2): io.Copy
// uses whatever the platform offers (a 32 KiB user-space buffer at worst).
func relayHalf(dst, src net.Conn) (int64, error) {
	return io.Copy(dst, src)
}

// parking exists only on Linux; elsewhere the upstream direction always has its own
// goroutine.
type parking struct{}

func startUpstream(u *upstream) { u.runBlocking() }

func (u *upstream) stopParking()    {}
func (u *upstream) releaseParking() {}
