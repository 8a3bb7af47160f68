package lite

import (
	"errors"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/antibot"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/players"
)

// What a player turned away is told, and the bound on telling. A bare close shows in
// the client as a generic I/O error, so a login refused for any reason gets a Login
// Disconnect where the protocol allows one; a ping is just closed.

// tellTimeout bounds the read of a refused connection's handshake (is it a login?).
// At most admission.MaxFullReplies connections are told at once (Lite.telling): under
// a flood, refusing must stay cheaper than serving, so past it a refusal is a bare
// close.
const tellTimeout = 2 * time.Second

// proxyFullDisconnect is what a player gets when the proxy itself is out of file
// descriptors or memory: not the backend's fault, and not the route's unavailable text.
var proxyFullDisconnect = disconnectFrame(nil, "This proxy is full right now. Please try again in a moment.")

// malformedLoginDisconnect is what a player whose Login Start cannot be read gets.
var malformedLoginDisconnect = disconnectFrame(nil, "Your client sent a login this server cannot read.")

// identify reads the player's Login Start within the handshake's deadline and size
// cap (it stays in s.buf: the backend gets it byte for byte) and refuses, before any
// backend is dialled, a player the access lists (global, then the route's) keep out:
// told the route's text, or the asleep text while its target sleeps (no wake).
func (s *session) identify(rt *compiledRoute) error {
	var ls wire.LoginStart
	err := s.readUntil("login start", len(s.raw)+wire.MaxLoginStartLen, func() (done bool, err error) {
		if ls, _, err = wire.ParseLoginStart(s.extra(), s.hs.Protocol); err == wire.ErrIncomplete {
			return false, nil
		}
		return true, err
	})
	if errors.Is(err, wire.ErrMalformed) || errors.Is(err, wire.ErrTooLarge) {
		s.sendDisconnect(malformedLoginDisconnect)
		return reject(ReasonMalformed, "%w", err)
	}
	if err != nil {
		return err
	}
	s.player = &players.Player{Name: ls.Name, UUID: ls.UUID}
	if text, no := s.snap.cfg.Lite.Operator.Layer.Refuse(rt.key, rt.cfg.Host, *s.player, s.playerIP(), time.Now()); no {
		s.sendDisconnect(disconnectFrame(text, "")) // a ban or a maintenance (package operator)
		return reject(ReasonDenied, "refused by the operator layer")
	}
	if s.l.players.Allows(s.ev.VHost, *s.player, &s.snap.cfg.Lite.Players.Rules, &rt.cfg.Players.Rules) {
		g := &s.snap.cfg.Lite.Players
		v := s.l.bots.Check(antibot.Login{Player: s.player, Addr: s.playerIP(), Route: rt.key,
			Global: &g.Bots, Own: &rt.cfg.Players.Bots, Attack: &g.AttackMode})
		if v.Reason == "" {
			return nil
		}
		s.sendDisconnect(disconnectFrame(v.Text, v.Default))
		return reject(v.Reason, "refused by the anti-bot checks")
	}
	text := disconnectFrame(rt.cfg.Players.Text, config.DefaultDeniedText)
	if s.l.wake.Asleep(rt.key) {
		text = disconnectFrame(rt.cfg.WakeSettings.AsleepMOTD, config.DefaultAsleepMOTD)
	}
	s.sendDisconnect(text)
	return reject(ReasonDenied, "not on the route's access lists")
}

// limitDisconnect is the Login Disconnect for a login refused by an admission limit:
// the reason and when to try again.
func limitDisconnect(err error, wait time.Duration) []byte {
	var msg string
	switch {
	case errors.Is(err, admission.ErrRateLimited):
		msg = "You are connecting too often. Try again in " + status.RetryIn(wait) + "."
	case errors.Is(err, admission.ErrTooManyFromAddr):
		msg = "Too many connections from your address. Close one of them and try again."
	default:
		msg = "The server is handling too many connections. Try again in a few seconds."
	}
	return disconnectFrame(nil, msg)
}

// tellLimit tells a player refused at accept by an admission limit why, if the
// connection turns out to be a login. A deny-list refusal is closed silently.
func (s *session) tellLimit(err error) {
	if errors.Is(err, admission.ErrDenied) {
		return
	}
	select {
	case s.l.telling <- struct{}{}:
		defer func() { <-s.l.telling }()
	default:
		return
	}
	_ = s.client.SetReadDeadline(earliest(time.Now().Add(tellTimeout), s.admitted.handshakeBy))
	s.tellLogin(limitDisconnect(err, s.l.adm.RetryAfter(s.admitted.player, err)))
}

// tellLogin reads the handshake and sends frame if it is a login's: a ping is closed.
func (s *session) tellLogin(frame []byte) {
	if legacy, err := s.readHandshake(); err == nil && !legacy && s.hs.IsLogin() {
		s.sendDisconnect(frame)
	}
}

// tellFull answers a connection accepted past the open-files cap (it holds a slot of
// Lite.telling, given back in session.close): a login gets the proxy-full text, a
// status or legacy ping is closed (its answer would need a backend socket, which the
// cap has none for). The handshake is read within a short deadline: a real client
// sends it at once.
func (s *session) tellFull() error {
	_ = s.client.SetReadDeadline(s.start.Add(min(tellTimeout, s.snap.cfg.Quota.FirstByteTimeout)))
	l := s.l
	l.log.Error(errProxyFull, "open-files cap reached, refusing a player (raise the hard open-files limit)", "cap", l.fdCap)
	if s.snap.cfg.ProxyProtocol && s.trusted() {
		if _, _, err := s.readProxyHeader(); err != nil {
			return reject(ReasonProxyFull, "at the open-files cap of %d connections; proxy header: %w", l.fdCap, err)
		}
	}
	s.tellLogin(proxyFullDisconnect)
	return reject(ReasonProxyFull, "at the open-files cap of %d connections", l.fdCap)
}

// tellProxyFull tells the player a dial failed for the proxy's own lack of resources.
// It is logged once per interval (the log limiter keys on the message and the
// sentinel error), counted under the proxy-full rejection reason, and never counted
// against a backend.
func (s *session) tellProxyFull(err error) error {
	s.l.log.Error(errProxyFull, "proxy out of resources, refusing a player (check the fd limit and maxConnections)", s.logKV("cause", err.Error())...)
	s.ev.Backend, s.ev.BackendTemplate = "", ""
	s.sendDisconnect(proxyFullDisconnect)
	return reject(ReasonProxyFull, "%w", err)
}

// sendDisconnect writes a Login Disconnect frame under a write deadline.
func (s *session) sendDisconnect(frame []byte) {
	_ = s.client.SetWriteDeadline(time.Now().Add(s.snap.cfg.ConnectionTimeout))
	_, _ = s.client.Write(frame)
}

// startingDisconnect is what a held player gets when the server did not start
// in time: which server, and how long it usually takes, so the player knows to
// join again instead of guessing.
func startingDisconnect(host string, typical time.Duration) []byte {
	return disconnectFrame(nil, startingText(host, typical, "Please join again in a moment."))
}

// startingText says that host's server is starting, how long that usually takes
// when known, then what the player should do.
func startingText(host string, typical time.Duration, then string) string {
	name := logging.Clip(host)
	if typical <= 0 {
		return "The server " + name + " is starting up. " + then
	}
	return "The server " + name + " is starting up; it usually starts in about " + status.About(typical) + ". " + then
}
