package main

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// attack is one kind of abusive client. run makes one connection and returns how long
// the proxy let it live and whether it was answered at all.
type attack struct {
	name string
	run  func(d dialer, rng *rand.Rand) (held time.Duration, answered bool, err error)
}

// floodIP is the single address the one-address floods come from.
var floodIP = netip.MustParseAddr("203.0.113.66")

func fromFlood(rng *rand.Rand) netip.AddrPort {
	return netip.AddrPortFrom(floodIP, uint16(1024+rng.IntN(60000)))
}

// fromSpray is a fresh IPv6 /64 out of one /32: thousands of distinct quota keys.
func fromSpray(rng *rand.Rand) netip.AddrPort {
	var a [16]byte
	a[0], a[1], a[2], a[3] = 0x20, 0x01, 0x0d, 0xb8
	v := rng.Uint32()
	a[4], a[5], a[6], a[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	a[15] = 1
	return netip.AddrPortFrom(netip.AddrFrom16(a), 40000)
}

// untilClosed reads (and discards) until the proxy closes c; held is measured from start.
func untilClosed(c net.Conn, start time.Time) (time.Duration, bool, error) {
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 512)
	answered := false
	for {
		n, err := c.Read(buf)
		answered = answered || n > 0
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return time.Since(start), answered, err // the proxy kept it open: a finding
			}
			return time.Since(start), answered, nil
		}
	}
}

func attacks() []attack {
	return []attack{
		{"garbage", dialed("127.0.0.1", fromFlood, garbage)},
		{"silent", dialed("127.0.0.1", fromSpray, silent)},
		{"slowloris", dialed("127.0.0.1", fromSpray, slowloris)},
		{"oversize", dialed("127.0.0.1", fromFlood, oversize)},
		{"untrusted-proxy-header", dialed("127.0.0.2", noSource, untrustedHeader)},
		{"login-flood-one-ip", dialed("127.0.0.1", fromFlood, loginFlood)},
		{"ping-spray", dialed("127.0.0.1", fromSpray, pingSpray)},
	}
}

// abuse is what an attack does on a connection opened at start.
type abuse func(c net.Conn, rng *rand.Rand, start time.Time) (held time.Duration, answered bool, err error)

// dialed makes an attack of body: one connection to the proxy at local, from
// the address from draws, closed when body returns.
func dialed(local string, from func(*rand.Rand) netip.AddrPort, body abuse) func(dialer, *rand.Rand) (time.Duration, bool, error) {
	return func(d dialer, rng *rand.Rand) (time.Duration, bool, error) {
		start := time.Now()
		c, err := d.dial(local, from(rng), 10*time.Second)
		if err != nil {
			return 0, false, err
		}
		defer c.Close()
		return body(c, rng, start)
	}
}

// noSource leaves the source address to the system.
func noSource(*rand.Rand) netip.AddrPort { return netip.AddrPort{} }

// garbage sends random bytes that never start a handshake, from the flood address.
func garbage(c net.Conn, rng *rand.Rand, start time.Time) (time.Duration, bool, error) {
	junk := make([]byte, 1+rng.IntN(512))
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	junk[0] = 0x7F
	_, _ = c.Write(junk)
	return untilClosed(c, start)
}

// silent connects from a fresh address and says nothing.
func silent(c net.Conn, _ *rand.Rand, start time.Time) (time.Duration, bool, error) {
	return untilClosed(c, start)
}

// slowloris sends a real handshake one byte every 150ms, from a fresh address.
func slowloris(c net.Conn, _ *rand.Rand, start time.Time) (time.Duration, bool, error) {
	hs := handshake("play.example.com", wire.IntentLogin)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(150 * time.Millisecond)
		defer tick.Stop()
		for _, b := range hs {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			<-tick.C
		}
	})
	held, answered, err := untilClosed(c, start)
	_ = c.Close()
	wg.Wait()
	return held, answered, err
}

// oversize announces a 2 MiB frame and sends 64 KiB of it, from the flood address.
func oversize(c net.Conn, _ *rand.Rand, start time.Time) (time.Duration, bool, error) {
	frame := wire.AppendVarInt(nil, 2<<20)
	_, _ = c.Write(append(frame, make([]byte, 64<<10)...))
	return untilClosed(c, start)
}

// untrustedHeader claims another address in a PROXY header from an untrusted peer.
func untrustedHeader(c net.Conn, _ *rand.Rand, start time.Time) (time.Duration, bool, error) {
	hdr, _ := proxyHeader(netip.MustParseAddrPort("192.0.2.1:1"))
	_, _ = c.Write(append(hdr, handshake("play.example.com", wire.IntentLogin)...))
	return untilClosed(c, start)
}

// loginFlood logs in from the flood address as fast as it can.
func loginFlood(c net.Conn, _ *rand.Rand, start time.Time) (time.Duration, bool, error) {
	_, _ = c.Write(append(handshake("play.example.com", wire.IntentLogin), loginStart("Bot")...))
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _, err := readFrame(bufio.NewReader(c), 1<<16)
	return time.Since(start), err == nil, nil
}

// pingSpray pings from a fresh IPv6 /64 each time.
func pingSpray(c net.Conn, _ *rand.Rand, start time.Time) (time.Duration, bool, error) {
	err := ping(c, "play.example.com")
	return time.Since(start), err == nil, nil
}
