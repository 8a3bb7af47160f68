package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

var errTooManyFiles = syscall.EMFILE

// ioTimeout bounds every dial, read and write of a workload: a stuck proxy shows up
// as errors, never as a hung benchmark.
const ioTimeout = 5 * time.Second

// target is where a client workload connects and what it writes into the handshake.
type target struct {
	addr     string
	host     string
	protocol int32
	sampler  *sampler
	label    string
	metrics  string // the proxy's Prometheus URL, for hold's goroutine count
	// dialers cycle through loopback source addresses: every connection a storm
	// closes sits in TIME_WAIT for a minute, and one source address has only ~28,000
	// ephemeral ports per destination, so back-to-back storms from one address end in
	// connect() searching an exhausted port range (stalls of a second and more).
	dialers []*net.Dialer
	next    *atomic.Uint64
}

// targetFlags registers the flags every client workload shares; the function it
// returns parses args (a usage error if they do not parse) and builds the target.
func targetFlags(fs *flag.FlagSet) func(args []string) (target, error) {
	addr := fs.String("addr", "127.0.0.1:25565", "proxy (or backend) address")
	host := fs.String("host", "mcload.example.com", "virtual host written into the handshake")
	protocol := fs.Int("protocol", 765, "protocol version written into the handshake")
	pids := fs.String("pid", "", "comma-separated pids to sample CPU, RSS and fds of (the proxy)")
	label := fs.String("label", "", "copied into the result (the script's target name)")
	sources := fs.Int("sources", 32, "loopback source addresses to spread connections over (127.0.0.1 up); 1 for the default source")
	return func(args []string) (target, error) {
		if err := fs.Parse(args); err != nil {
			return target{}, errors.Join(errUsage, err)
		}
		p, err := parsePIDs(*pids)
		if err != nil {
			return target{}, err
		}
		t := target{addr: *addr, host: *host, protocol: int32(*protocol), sampler: newSampler(p), label: *label}
		t.spread(*sources)
		return t, nil
	}
}

// windowFlags registers the measured duration and the unmeasured warm-up before it.
func windowFlags(fs *flag.FlagSet) (warm, dur *time.Duration) {
	dur = fs.Duration("d", 5*time.Second, "measured duration")
	warm = fs.Duration("warmup", time.Second, "unmeasured warm-up before it")
	return warm, dur
}

// spread sets up n loopback source addresses when the target is on loopback.
func (t *target) spread(n int) {
	t.next = new(atomic.Uint64)
	t.dialers = []*net.Dialer{{Timeout: ioTimeout}}
	host, _, err := net.SplitHostPort(t.addr)
	ip := net.ParseIP(host)
	if err != nil || ip == nil || !ip.IsLoopback() || ip.To4() == nil || n <= 1 {
		return
	}
	t.dialers = t.dialers[:0]
	for i := range min(n, 254) {
		src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i))}
		t.dialers = append(t.dialers, &net.Dialer{Timeout: ioTimeout, LocalAddr: src, Control: bindNoPort})
	}
}

func (t target) handshake(intent int32) []byte {
	return wire.AppendHandshake(nil, wire.Handshake{Protocol: t.protocol, Address: t.host, Port: 25565, Intent: intent})
}

// statusPreamble is a handshake with status intent followed by a Status Request.
func (t target) statusPreamble() []byte {
	return wire.AppendStatusRequest(t.handshake(wire.IntentStatus))
}

// loginPreamble is a handshake with login intent followed by a 1.20.2+ Login Start.
// loginPreamble is a handshake and Login Start for name; player numbers the
// player's UUID. Players at once need numbers of their own: a proxy may take two
// byte-identical logins in flight for one that came back to it (a loop).
func (t target) loginPreamble(name string, player uint64) []byte {
	payload := wire.AppendString(nil, name)
	payload = append(payload, bytes.Repeat([]byte{0x42}, 8)...)
	payload = binary.BigEndian.AppendUint64(payload, player)
	return wire.AppendFrame(t.handshake(wire.IntentLogin), 0x00, payload)
}

func (t target) dial() (*net.TCPConn, error) {
	d := &net.Dialer{Timeout: ioTimeout}
	if len(t.dialers) > 0 {
		d = t.dialers[t.next.Add(1)%uint64(len(t.dialers))]
	}
	c, err := d.Dial("tcp", t.addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", t.addr, err)
	}
	return c.(*net.TCPConn), nil
}

// frameReader reads whole frames from a connection; buf[:off] was consumed.
type frameReader struct {
	c   net.Conn
	buf []byte
	off int
}

// more reads at least one more byte, growing buf when it is full.
func (r *frameReader) more() error {
	if len(r.buf) == cap(r.buf) {
		r.buf = append(r.buf, make([]byte, cap(r.buf))...)[:len(r.buf)]
	}
	n, err := r.c.Read(r.buf[len(r.buf):cap(r.buf)])
	r.buf = r.buf[:len(r.buf)+n]
	if n > 0 {
		return nil
	}
	if err == nil {
		err = errors.New("read returned nothing")
	}
	return err
}

func (r *frameReader) handshake() (wire.Handshake, error) {
	for {
		hs, n, err := wire.ParseHandshake(r.buf[r.off:])
		if err == nil {
			r.off += n
			return hs, nil
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return hs, fmt.Errorf("parse handshake: %w", err)
		}
		if err := r.more(); err != nil {
			return hs, fmt.Errorf("read handshake: %w", err)
		}
	}
}

func (r *frameReader) frame(maxLen int) (int32, []byte, error) {
	for {
		id, payload, n, err := wire.ParseFrame(r.buf[r.off:], maxLen)
		if err == nil {
			r.off += n
			return id, payload, nil
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return 0, nil, fmt.Errorf("parse frame: %w", err)
		}
		if err := r.more(); err != nil {
			return 0, nil, fmt.Errorf("read frame: %w", err)
		}
	}
}

// reset forgets everything read, keeping the buffer for the next connection.
func (r *frameReader) reset(c net.Conn) {
	r.c, r.buf, r.off = c, r.buf[:0], 0
}
