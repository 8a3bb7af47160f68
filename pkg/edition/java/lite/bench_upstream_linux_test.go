//go:build linux

package lite_test

import (
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
)

// BenchmarkUpstreamPacket is one 64-byte packet from the player, echoed by the
// backend, with the client-to-backend direction parked between packets (the default)
// or on a goroutine of its own. Each op wakes that direction once; cpu-us/op is the
// whole process (client, proxy, backend), so the difference is what parking costs.
func BenchmarkUpstreamPacket(b *testing.B) {
	for _, tc := range []struct {
		name string
		park bool
	}{{"parked", true}, {"own goroutine", false}} {
		b.Run(tc.name, func(b *testing.B) {
			lite.SetParking(tc.park)
			defer lite.SetParking(true)
			c := echoSession(b)
			msg, got := make([]byte, 64), make([]byte, 64)
			cpu := rusageCPU()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, got); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rusageCPU()-cpu)/float64(b.N)/1e3, "cpu-us/op")
		})
	}
}

// echoSession is one joined session through a fresh proxy to a backend that echoes.
func echoSession(b *testing.B) *net.TCPConn {
	b.Helper()
	pre := preamble()
	bk := newScriptBackend(b, len(pre), func(c *net.TCPConn) {
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if _, werr := c.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
	p := relayProxy(b, bk.addr, nil)
	c := dialTCP(b, p.addr)
	if _, err := c.Write(pre); err != nil {
		b.Fatal(err)
	}
	_ = c.SetDeadline(time.Time{})
	return c
}

func rusageCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
