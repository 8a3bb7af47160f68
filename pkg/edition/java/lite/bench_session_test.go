package lite_test

import (
	"io"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// BenchmarkLoginSetup is one player connecting through the proxy: dial, handshake and
// Login Start, backend dialed and the preamble replayed, first byte back (the backend
// echoes it). Allocations count the whole process: client, proxy and backend.
func BenchmarkLoginSetup(b *testing.B) {
	pre := preamble()
	bk := newScriptBackend(b, len(pre), func(c *net.TCPConn) {
		_, _ = c.Write(pre)
		_, _ = io.Copy(io.Discard, c)
	})
	p := relayProxy(b, bk.addr, nil)
	got := make([]byte, len(pre))
	b.ReportAllocs()
	for b.Loop() {
		c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write(pre); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, got); err != nil {
			b.Fatal(err)
		}
		_ = c.Close()
	}
}

// BenchmarkStatusPing is one server-list ping: dial, handshake, Status Request,
// response, Ping, Pong, close; answered from the status cache, or passed through to
// the backend each time (cachePingTTL -1).
func BenchmarkStatusPing(b *testing.B) {
	bk := newBackend(b, statusJSON("bench", 3, 100))
	for _, tc := range []struct{ name, ttl string }{{"cached", "10s"}, {"pass-through", "-1s"}} {
		b.Run(tc.name, func(b *testing.B) {
			p := startProxy(b, oneRoute("*.example.com", bk.addr).with("cachePingTTL: "+tc.ttl).String())
			benchPings(b, p.addr)
		})
	}
}

func benchPings(b *testing.B, addr string) {
	req := append(handshake(769, "play.example.com", wire.IntentStatus), wire.AppendStatusRequest(nil)...)
	ping := wire.AppendPing(nil, 42)
	r := &frames{buf: make([]byte, 0, 1024)}
	b.ReportAllocs()
	for b.Loop() {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		r.reset(c)
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		if id, err := r.next(); err != nil || id != wire.IDStatusRequest {
			b.Fatalf("status response: id %d, %v", id, err)
		}
		if _, err := c.Write(ping); err != nil {
			b.Fatal(err)
		}
		if id, err := r.next(); err != nil || id != wire.IDPing {
			b.Fatalf("pong: id %d, %v", id, err)
		}
		_ = c.Close()
	}
}

// frames reads whole frames from one connection into a reused buffer.
type frames struct {
	c   net.Conn
	buf []byte
	off int
}

func (r *frames) reset(c net.Conn) { r.c, r.buf, r.off = c, r.buf[:0], 0 }

func (r *frames) next() (int32, error) {
	for {
		id, _, n, err := wire.ParseFrame(r.buf[r.off:], wire.MaxStatusResponseLen)
		if err == nil {
			r.off += n
			return id, nil
		}
		if len(r.buf) == cap(r.buf) {
			r.buf = append(r.buf, make([]byte, cap(r.buf))...)[:len(r.buf)]
		}
		k, rerr := r.c.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+k]
		if k == 0 && rerr != nil {
			return 0, rerr
		}
	}
}
