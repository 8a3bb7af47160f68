//go:build !linux

package relay

import (
	"io"
	"net"
)

// half copies src to dst until src ends. Off Linux there is no splice(2): io.Copy uses
// whatever the platform offers (a 32 KiB user-space buffer at worst).
func half(dst, src net.Conn) (int64, error) {
	return io.Copy(dst, src)
}

// Parking exists only on Linux; elsewhere the upstream direction always has a worker.
type (
	parking struct{}
	pollers struct{}
)

func (pollers) running() int { return 0 }

func pipeCounts() (open, idle int) { return 0, 0 }

func (r *Relay) startUpstream(u *upstream, _ Options) { u.runBlocking() }

func (u *upstream) stopParking()    {}
func (u *upstream) releaseParking() {}
