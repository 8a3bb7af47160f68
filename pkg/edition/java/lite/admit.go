package lite

import (
	"bufio"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/pires/go-proxyproto"
)

// admit starts the handshake deadline and, when the config accepts PROXY headers, reads
// one from a trusted source. The header is read through a small bufio.Reader whose
// leftover bytes (the start of the handshake) move into s.buf, so the client socket
// itself stays a plain *net.TCPConn and the relay can still splice.
func (s *session) admit() error {
	_ = s.client.SetReadDeadline(time.Now().Add(s.snap.cfg.ReadTimeout))
	if !s.snap.cfg.ProxyProtocol {
		return nil
	}
	br := bufio.NewReaderSize(s.client, 512)
	hdr, err := proxyproto.Read(br)
	switch {
	case errors.Is(err, proxyproto.ErrNoProxyProtocol):
		// Direct connection without a header: allowed, the socket address is the client.
	case err != nil:
		return reject(ReasonProxyHeader, "proxy header: %w", err)
	case !s.trusted():
		return reject(ReasonProxyHeader, "proxy header from untrusted %s", s.clientAddr)
	default:
		if src, _, ok := hdr.TCPAddrs(); ok {
			s.clientAddr = src
		}
	}
	if n := br.Buffered(); n > 0 {
		peek, _ := br.Peek(n)
		s.buf = append(make([]byte, 0, max(512, n)), peek...)
	}
	return nil
}

// trusted reports whether the socket peer may send a PROXY header.
func (s *session) trusted() bool {
	ap, err := netip.ParseAddrPort(s.client.RemoteAddr().String())
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, p := range s.snap.cfg.ProxyProtocolTrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// proxyHeader builds the PROXY v2 header sent to a backend: the player's address as the
// source, the address the player connected to as the destination.
func proxyHeader(client, local net.Addr) ([]byte, error) {
	h := proxyproto.HeaderProxyFromAddrs(2, client, local)
	return h.Format()
}

// localProxyHeader is the PROXY v2 LOCAL header for the proxy's own connections (status
// probes): a backend that requires a header accepts it and knows no player is behind it.
func localProxyHeader() ([]byte, error) {
	h := &proxyproto.Header{Version: 2, Command: proxyproto.LOCAL, TransportProtocol: proxyproto.UNSPEC}
	return h.Format()
}

// admissionState is what admission holds for one connection until it closes.
type admissionState struct{}

// admitIntent applies the per-intent admission policy once the handshake is known.
func (s *session) admitIntent() error { return nil }

// releaseAdmission gives back whatever admission reserved for this connection.
func (s *session) releaseAdmission() {}
