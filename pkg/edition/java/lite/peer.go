package lite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/netip"

	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Who the peer is: the socket's address, or the player a trusted front names in its
// PROXY header; and what a TCPShield front may vouch for.

// readProxyHeader reads an optional PROXY header from a trusted peer. read reports a
// header was there; known reports it named the player (a LOCAL header, e.g. a load
// balancer's health check, names nobody).
func (s *session) readProxyHeader() (read, known bool, err error) {
	br := bufio.NewReaderSize(s.client, 512)
	hdr, err := proxyproto.Read(br)
	switch {
	case errors.Is(err, proxyproto.ErrNoProxyProtocol):
		// A trusted peer connecting directly: allowed, but it is not a player.
	case err != nil && isClientNoise(err):
		return false, false, fmt.Errorf("read proxy header: %w", err)
	case err != nil:
		return false, false, reject(ReasonProxyHeader, "proxy header: %w", err)
	default:
		read = true
		if src, _, ok := hdr.TCPAddrs(); ok {
			s.clientAddr, known = src, true
		}
	}
	if n := br.Buffered(); n > 0 {
		peek, _ := br.Peek(n)
		if n <= handshakeBufSize {
			s.buf = append(s.l.hsBufs.get(), peek...)
		} else {
			s.buf = append(make([]byte, 0, n), peek...)
		}
	}
	return read, known, nil
}

// looksLikeProxyHeader reports bytes that start a PROXY header (v1 or v2). Two bytes
// decide it: neither signature starts a Minecraft handshake ("PR" is a frame of
// length 80 with packet id 0x52; the v2 signature's "\r\n" a frame of length 13
// with id 0x0A), so a real client is never mistaken for one.
func looksLikeProxyHeader(b []byte) bool {
	for _, sig := range [][]byte{proxyproto.SIGV1, proxyproto.SIGV2} {
		n := min(len(b), len(sig))
		if n >= 2 && bytes.Equal(b[:n], sig[:n]) {
			return true
		}
	}
	return false
}

// trusted reports whether the socket peer may send a PROXY header. A trusted peer
// that sends none is a load balancer or tunnel, not a player, so per-address quotas
// do not apply to it.
func (s *session) trusted() bool { return s.peerIn(s.snap.cfg.ProxyProtocolTrustedProxies) }

// peerIn reports whether the socket peer (not an address a PROXY header names) is
// inside one of prefixes.
func (s *session) peerIn(prefixes []netip.Prefix) bool {
	ap, _ := reach.AddrPort(s.client.RemoteAddr())
	ip := ap.Addr()
	if !ip.IsValid() {
		return false
	}
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// playerIP is the player's IP: from a trusted PROXY header, else the socket's.
func (s *session) playerIP() netip.Addr {
	ap, _ := reach.AddrPort(s.clientAddr)
	return ap.Addr()
}

// forwardAddress is the server address a tcpShieldRealIP route's backends get to see,
// before the proxy adds its own RealIP block (reach.First). A block the client put
// in its handshake is removed unless the socket peer is a trusted TCPShield front
// (config.lite.tcpShieldTrustedProxies), which writes and signs the block itself: from
// anyone else it is the player naming their own IP, which would defeat IP bans. Forge
// markers and other NUL fields stay. Routes without tcpShieldRealIP forward the address
// untouched, as before.
func (s *session) forwardAddress(rt *compiledRoute, addr string) string {
	if !rt.cfg.TCPShieldRealIP || s.peerIn(s.snap.cfg.Lite.TCPShieldTrustedProxies) {
		return addr
	}
	return wire.StripRealIP(addr)
}
