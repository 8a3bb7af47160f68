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

// Parking exists only on Linux; elsewhere each direction has a worker.
type (
	pollers  struct{}
	linkLoop struct{}
	dirLoop  struct{}
)

func (*pollers) running() int { return 0 }

func pipeCounts() (open, idle int) { return 0, 0 }

// PipeFDs is the descriptors the relay's pipes may hold: none without splice(2).
func PipeFDs(uint64) int { return 0 }

func (r *Relay) start(l *link, o Options) {
	l.up.runBlocking(o.Pending.Up)
	l.down.runBlocking(o.Pending.Down)
}

func (l *link) abortParked() bool { return false }
func (l *link) detach() bool      { return false }
func (l *link) release()          {}

type pipePool struct{}
