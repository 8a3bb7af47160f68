package lite

import (
	"fmt"
	"net/netip"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
)

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
		s.admitted.player = s.playerIP()
	}
	t, err := s.l.adm.Admit(s.admitted.player)
	if err != nil {
		s.tellLimit(err)
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
		s.sendDisconnect(limitDisconnect(err, s.l.adm.RetryAfter(s.admitted.player, err)))
	}
	return reject(ReasonAdmission, "admit %s intent %d: %w", s.clientAddr, s.hs.Intent, err)
}

// Admission exposes the instance's admission controller (for metrics and tests).
func (l *Lite) Admission() *admission.Controller { return l.adm }
