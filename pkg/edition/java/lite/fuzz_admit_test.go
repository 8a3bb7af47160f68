package lite

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// scriptedConn is a client that sends data in reads of at most chunk bytes, then EOF.
type scriptedConn struct {
	data   []byte
	pos    int
	chunk  int
	remote net.Addr
}

func (c *scriptedConn) Read(b []byte) (int, error) {
	if c.pos >= len(c.data) {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), c.chunk)], c.data[c.pos:])
	c.pos += n
	return n, nil
}

func (c *scriptedConn) Write(b []byte) (int, error) { return len(b), nil }
func (c *scriptedConn) Close() error                { return nil }
func (c *scriptedConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: int(wire.DefaultPort)}
}
func (c *scriptedConn) RemoteAddr() net.Addr               { return c.remote }
func (c *scriptedConn) SetDeadline(t time.Time) error      { return nil }
func (c *scriptedConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *scriptedConn) SetWriteDeadline(t time.Time) error { return nil }

// proxyHeader is a PROXY header of version from src:4000 to the proxy's port, or a
// LOCAL one.
func proxyHeader(t testing.TB, version byte, src string, local bool) []byte {
	h := proxyproto.HeaderProxyFromAddrs(version, &net.TCPAddr{IP: net.ParseIP(src), Port: 4000}, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: int(wire.DefaultPort)})
	if local {
		h = &proxyproto.Header{Version: version, Command: proxyproto.LOCAL, TransportProtocol: proxyproto.UNSPEC}
	}
	b, err := h.Format()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// localhostHandshake is a login handshake for localhost:25565, protocol 765.
var localhostHandshake = []byte{0x10, 0x00, 0xFD, 0x05, 0x09, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't', 0x63, 0xDD, 0x02}

// admitter is a Lite that only admits: enough to drive session.admit directly.
func admitter(cfg *config.Config) *Lite {
	return &Lite{log: logr.Discard(), adm: admission.New(cfg.Quota.Config, admission.Options{})}
}

// admitSession is a session of l whose client is c, as admit finds it.
func admitSession(l *Lite, snap *snapshot, c *scriptedConn) session {
	return session{conn: conn{l: l, client: c, clientAddr: c.remote, start: time.Now()}, snap: snap}
}

// admitSeeds are real PROXY headers (v1, v2, LOCAL) in front of a handshake, and a few
// broken ones.
func admitSeeds(f *testing.F) [][]byte {
	hs := localhostHandshake
	return [][]byte{
		append(proxyHeader(f, 1, "203.0.113.5", false), hs...),
		append(proxyHeader(f, 2, "203.0.113.5", false), hs...),
		append(proxyHeader(f, 2, "2001:db8::1", false), hs...),
		append(proxyHeader(f, 2, "", true), hs...),
		append(proxyHeader(f, 1, "", true), hs...),
		[]byte("PROXY UNKNOWN\r\n"),
		[]byte("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n"),
		hs,
		{0xFE, 0x01, 0xFA},
		{},
	}
}

// FuzzAdmitProxyHeader drives admit with arbitrary first bytes, split into reads of any
// size, from a trusted or an untrusted peer. Whatever comes in, admit must not panic,
// must pass on exactly the bytes after a header it accepted (none lost, none repeated),
// must never take a header from an untrusted peer, and must leave no admission count
// behind once released.
func FuzzAdmitProxyHeader(f *testing.F) {
	for _, seed := range admitSeeds(f) {
		f.Add(seed, uint8(0), true)
		f.Add(seed, uint8(7), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, trustedPeer bool) {
		cfg := config.Default()
		cfg.ProxyProtocol = true
		remote := &net.TCPAddr{IP: net.IPv4(203, 0, 113, 200), Port: 5555}
		if trustedPeer {
			remote = &net.TCPAddr{IP: net.IPv4(10, 9, 8, 7), Port: 5555}
		}
		c := &scriptedConn{data: data, chunk: int(chunk) + 1, remote: remote}
		l := admitter(cfg)
		adm := l.adm
		sv := admitSession(l, &snapshot{cfg: cfg}, c)
		s := &sv

		err := s.admit()
		defer func() {
			s.ticket.Release()
			if st := adm.Stats(); st.Open != 0 || st.OpenAddrs != 0 {
				t.Fatalf("counts after release: %+v", st)
			}
		}()
		if err != nil {
			if r, ok := errors.AsType[*rejection](err); ok && r.reason != ReasonProxyHeader && r.reason != ReasonAdmission {
				t.Fatalf("unexpected rejection %q: %v", r.reason, err)
			}
			return
		}
		checkAdmitted(t, s, c, trustedPeer)
	})
}

// checkAdmitted checks what admit left for the handshake reader.
func checkAdmitted(t *testing.T, s *session, sc *scriptedConn, trustedPeer bool) {
	t.Helper()
	data, remote := sc.data, sc.remote
	consumed := sc.pos - len(s.buf)
	if len(data) == 0 {
		t.Fatal("admitted a client that sent nothing")
	}
	if consumed < 0 || !bytes.Equal(s.buf, data[consumed:sc.pos]) {
		t.Fatalf("buffer %x is not the bytes after the header (consumed %d of %x)", s.buf, consumed, data)
	}
	if !trustedPeer && (consumed != 0 || s.clientAddr != remote) {
		t.Fatalf("untrusted peer: %d header bytes taken, client %v", consumed, s.clientAddr)
	}
	if consumed == 0 && looksLikeProxyHeader(s.buf) {
		t.Fatalf("admitted unread PROXY header bytes %x", s.buf)
	}
	if s.admitted.player.IsValid() != (!trustedPeer || s.clientAddr != remote) {
		t.Fatalf("player %v for client %v (trusted peer %v)", s.admitted.player, s.clientAddr, trustedPeer)
	}
}
