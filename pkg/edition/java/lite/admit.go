package lite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
)

// maxRefusalReplies bounds the refused connections whose handshake is read (within
// refusalReadTimeout) to tell a player why with a Login Disconnect: under a flood,
// refusing must stay cheaper than serving, so past it a refusal is a bare close.
const (
	maxRefusalReplies  = 64
	refusalReadTimeout = 2 * time.Second
)

// refusalDisconnect is the Login Disconnect for a login refused by a limit: the reason
// and when to try again (a bare close shows as a generic I/O error in the client).
func refusalDisconnect(err error, wait time.Duration) []byte {
	var msg string
	switch {
	case errors.Is(err, admission.ErrRateLimited):
		msg = "You are connecting too often. Try again in " + retryIn(wait) + "."
	case errors.Is(err, admission.ErrTooManyFromAddr):
		msg = "Too many connections from your address. Close one of them and try again."
	default:
		msg = "The server is handling too many connections. Try again in a few seconds."
	}
	return disconnectFrame(nil, msg)
}

// retryIn is wait in whole seconds, rounded up and at least one: "1 second", "5 seconds".
func retryIn(wait time.Duration) string {
	n := max(1, int((wait+time.Second-1)/time.Second))
	if n == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", n)
}

// admissionState is what admission decided for a connection that the handshake still
// needs; the ticket it granted is the connection's (conn.ticket), as it is given back
// only at the end.
type admissionState struct {
	// player is the address quotas are charged to; the zero Addr when the player is
	// unknown (a trusted proxy that sent no PROXY header).
	player netip.Addr
	// handshakeBy is when the whole handshake must have arrived.
	handshakeBy time.Time
}

// admit runs before anything else reads from the client. Within a short first-byte
// deadline it reads the PROXY header (only from a trusted proxy, only when enabled),
// asks the admission controller (access lists, quotas, caps) and waits for the first
// byte; then it leaves the rest of the handshake under readTimeout, counted from accept.
// Whatever it read past a PROXY header or as first bytes stays in s.buf, so the client
// socket stays a plain *net.TCPConn and the relay can still splice.
func (s *session) admit() error {
	cfg := s.snap.cfg
	s.admitted.handshakeBy = s.start.Add(cfg.ReadTimeout)
	_ = s.client.SetReadDeadline(earliest(s.start.Add(cfg.Quota.FirstByteTimeout), s.admitted.handshakeBy))

	peerTrusted := s.trusted()
	playerKnown := !peerTrusted
	headerRead := false
	if cfg.ProxyProtocol && peerTrusted {
		var err error
		if headerRead, playerKnown, err = s.readProxyHeader(); err != nil {
			return err
		}
	}
	if playerKnown {
		s.admitted.player = addrOf(s.clientAddr)
	}
	t, err := s.l.adm.Admit(s.admitted.player)
	if err != nil {
		s.replyRefusal(err)
		return reject(ReasonAdmission, "admit %s: %w", s.clientAddr, err)
	}
	s.ticket = t

	if len(s.buf) == 0 {
		if err := s.readFirst(); err != nil {
			return err
		}
	}
	if !headerRead && looksLikeProxyHeader(s.buf) {
		return reject(ReasonProxyHeader, "proxy header from %s, which may not send one", s.client.RemoteAddr())
	}
	_ = s.client.SetReadDeadline(s.admitted.handshakeBy)
	return nil
}

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

// readFirst waits for the client's first bytes under the first-byte deadline.
func (s *session) readFirst() error {
	if s.buf == nil {
		s.buf = s.l.hsBufs.get()
	}
	for {
		n, err := s.client.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if len(s.buf) > 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read first byte: %w", err)
		}
	}
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
	ip := addrOf(s.client.RemoteAddr())
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

// addrOf returns the IP of a TCP address (IPv4-mapped addresses unmapped); the zero
// Addr for anything else.
func addrOf(a net.Addr) netip.Addr {
	switch t := a.(type) {
	case *net.TCPAddr:
		return t.AddrPort().Addr().Unmap()
	case nil:
		return netip.Addr{}
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// admitIntent charges the status or logins quota once the handshake is known (a
// legacy ping is a status ping), instead of the connections quota: the connection is
// exempt from paying that at close. A refused login gets a Disconnect text saying
// when to retry; a refused ping is just closed.
func (s *session) admitIntent() error {
	s.ticket.Exempt()
	in := admission.IntentStatus
	if s.hs.IsLogin() {
		in = admission.IntentLogin
	}
	err := s.l.adm.AdmitIntent(s.admitted.player, in)
	if err == nil {
		return nil
	}
	if in == admission.IntentLogin {
		s.sendDisconnect(refusalDisconnect(err, s.l.adm.RetryAfter(s.admitted.player, err)))
	}
	return reject(ReasonAdmission, "admit %s intent %d: %w", s.clientAddr, s.hs.Intent, err)
}

// replyRefusal tells a player refused at accept by a limit why, if the connection
// turns out to be a login: it reads the handshake within refusalReadTimeout, at most
// maxRefusalReplies connections at a time. A deny-list refusal is closed silently.
func (s *session) replyRefusal(err error) {
	if errors.Is(err, admission.ErrDenied) {
		return
	}
	select {
	case s.l.refusing <- struct{}{}:
		defer func() { <-s.l.refusing }()
	default:
		return
	}
	_ = s.client.SetReadDeadline(earliest(time.Now().Add(refusalReadTimeout), s.admitted.handshakeBy))
	if legacy, herr := s.readHandshake(); herr != nil || legacy || !s.hs.IsLogin() {
		return
	}
	s.sendDisconnect(refusalDisconnect(err, s.l.adm.RetryAfter(s.admitted.player, err)))
}

// sendDisconnect writes a Login Disconnect frame under a write deadline.
func (s *session) sendDisconnect(frame []byte) {
	_ = s.client.SetWriteDeadline(time.Now().Add(s.snap.cfg.ConnectionTimeout))
	_, _ = s.client.Write(frame)
}

// Admission exposes the instance's admission controller (for metrics and tests).
func (l *Lite) Admission() *admission.Controller { return l.adm }
