package lite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/players"
)

// conn is what a connection holds from accept to its end: the socket, the admission
// ticket, and the context its events share. A joined session keeps only this and its
// relay state (relayed, login.go); the handshake's scratch in session is garbage once
// the relay has the session. Every byte here is paid by every idle player.
type conn struct {
	l      *Lite
	client net.Conn
	// clientAddr is the player's address: from a trusted PROXY header, else the socket's.
	clientAddr net.Addr
	start      time.Time
	// ticket is what admission granted this connection (see admit), given back at its end.
	ticket admission.Ticket
	// ev carries the fields every event of this connection shares; it is reused for
	// each event so observing costs no allocation. It points into the session while
	// the handshake runs; a joined session has none while it idles (relayed.evCtx)
	// and gets its own for its last events.
	ev *Event
	// player is who the Login Start names (identify); nil before it and for pings.
	player *players.Player
}

// session is one client connection from accept until it joins a backend or closes:
// conn plus the scratch of its handshake. It carries the config snapshot it started
// with, so a reload never changes its rules mid-flight.
type session struct {
	conn
	snap *snapshot

	buf []byte // bytes read from the client so far
	hs  wire.Handshake
	raw []byte // the handshake frame exactly as received
	// order is the backends' try order; orderBuf backs it so ordering does not allocate
	// for routes of up to len(orderBuf) backends.
	order    []string
	orderBuf [4]string

	// admitted is what admission decided for this connection (see admit); not to be
	// confused with s.l.adm, the instance's controller that grants it.
	admitted admissionState

	event Event // what conn.ev points to
	// sending is the login being sent to a backend, as reach.Logins knows it.
	sending reach.Sending
	// overCap: accepted past the open-files cap (fdcap.go). The connection holds a
	// slot of Lite.telling, given back once its socket is closed and before Serve
	// counts it gone, so the cap never sees a moment with one connection too few.
	overCap bool
}

// rejection is a connection closed on purpose (bad input, no route, all backends
// down), with a reason fit for a metric label. It is logged at debug: one bad client
// must not flood the log.
type rejection struct {
	reason string
	err    error
}

func (r *rejection) Error() string { return r.reason + ": " + r.err.Error() }
func (r *rejection) Unwrap() error { return r.err }

func reject(reason string, format string, args ...any) error {
	return &rejection{reason: reason, err: fmt.Errorf(format, args...)}
}

// handle is the whole life of one client connection: run is the path it takes, and
// close reports how it ended and frees what the connection held. A joined session is
// handed to the relay instead (login.go): handle returns, and the relay's completion
// ends the connection once the session is over.
func (l *Lite) handle(ctx context.Context, c net.Conn, overCap bool) {
	s := &session{conn: conn{l: l, client: c, clientAddr: c.RemoteAddr(), start: time.Now()}, snap: l.snap.Load(), overCap: overCap}
	s.ev = &s.event
	s.ev.ConnID = l.connIDs.Add(1)
	s.emit(EventAccepted)
	err := s.run(ctx)
	if _, ok := err.(handedOff); ok {
		return
	}
	s.close(ctx, err)
}

// close ends a connection that never joined a backend: one EventRejected if it failed,
// then the buffer goes back and the connection ends (conn.end).
func (s *session) close(ctx context.Context, err error) {
	if err != nil {
		s.ev.Reason, s.ev.Err = rejectReason(ctx, err), err
		s.emit(EventRejected)
		if _, ok := errors.AsType[*rejection](err); ok || isClientNoise(err) {
			s.l.log.V(1).Info("connection closed", s.logKV("reason", err.Error())...)
		} else {
			s.l.log.Error(err, "connection failed", s.logKV()...)
		}
	}
	s.releaseBuf()
	s.closeSocket()
	if s.overCap {
		<-s.l.telling
	}
	s.gone()
}

// end is the end of every connection, exactly once, joined or not: one EventClosed,
// then it frees the admission ticket and the socket and tells Serve (acceptLoop
// started it) it is over.
func (c *conn) end() {
	c.closeSocket()
	c.gone()
}

// closeSocket is the first half of end: EventClosed, the ticket and the socket.
func (c *conn) closeSocket() {
	c.l.bots.End(c.player) // before EventClosed: whoever sees it may log in as the name again
	c.emit(EventClosed)
	c.ticket.Release()
	_ = c.client.Close()
	c.l.track(c.client, false)
}

// gone is the second half of end: Serve stops counting the connection.
func (c *conn) gone() {
	c.l.live.Add(-1)
	select { // an accept loop waiting at the open-files cap looks again
	case c.l.freed <- struct{}{}:
	default:
	}
	c.l.sessions.Done()
}

// rejectReason classifies why a connection ended before reaching a backend.
func rejectReason(ctx context.Context, err error) string {
	var ne net.Error
	switch r, ok := errors.AsType[*rejection](err); {
	case ok:
		return r.reason
	case ctx.Err() != nil:
		return ReasonShutdown
	case errors.As(err, &ne) && ne.Timeout():
		return ReasonTimeout
	default:
		return ReasonClientGone
	}
}

// emit delivers one event to the instance's observer.
func (c *conn) emit(kind EventKind) {
	if c.l.obs == nil {
		return
	}
	c.ev.Kind, c.ev.Time, c.ev.Client, c.ev.Player = kind, time.Now(), c.clientAddr, c.player
	c.l.obs.Observe(c.ev)
	c.ev.next()
}

// logKV is the session's structured context for a log line, plus extra pairs.
func (c *conn) logKV(extra ...any) []any {
	kv := []any{"client", c.clientAddr.String()}
	if c.ev.VHost != "" {
		kv = append(kv, "vhost", logging.Clip(c.ev.VHost), "protocol", c.ev.Protocol)
	}
	if c.ev.Route != "" {
		kv = append(kv, "route", c.ev.Route)
	}
	if c.ev.Backend != "" {
		kv = append(kv, "backend", c.ev.Backend)
	}
	return append(c.player.AppendLog(kv), extra...)
}

// logSession reports whether this session writes its per-session INFO line
// (config.lite.sessionLogEvery: one session in N, 0 none).
func (s *session) logSession() bool {
	n := s.snap.cfg.Lite.SessionLogEvery
	return n > 0 && s.ev.ConnID%uint64(n) == 0
}

// run is the path of a connection, step by step; each step's function says the rest.
// Every way out is a return here: refused (over the cap, a loop, admission, a bad or
// late handshake, no route), answered (status, legacy ping), or handed to a backend.
func (s *session) run(ctx context.Context) error {
	// 0. Past the open-files cap (fdcap.go): told the proxy is full, nothing more.
	if s.overCap {
		return s.tellFull()
	}
	// A connection from one of the proxy's own backend dials (reach.Dials) is the
	// proxy talking to itself; it is closed without a word, so the dialling session
	// sees no backend there. Checked again once the handshake is in: the dialler
	// records its connection only after connect returns, but sends nothing before.
	if err := s.refuseLoop(); err != nil {
		return err
	}
	// 1. Admission (admit.go): PROXY header from a trusted peer, access lists, quotas,
	// connection caps, the first byte under its own deadline.
	if err := s.admit(); err != nil {
		return err
	}
	// 2. Read the first frame under readTimeout with a hard size cap.
	legacy, err := s.readHandshake()
	if err != nil {
		return err
	}
	if err := s.refuseLoop(); err != nil {
		return err
	}
	if legacy {
		return s.serveLegacy(ctx) // legacy.go: a pre-1.7 server-list ping
	}
	// 3. Match the cleaned host against the route table.
	rt, m, err := s.route()
	if err != nil {
		return err
	}
	// 4. Status intent (statuspath.go): answered by the proxy (cache, backend, fallback).
	if s.hs.Intent == wire.IntentStatus {
		return s.serveStatus(ctx, s.statusQuery(rt, m, s.hs))
	}
	// 5. Login or transfer: who the player says they are, and whether the access lists
	// let them in, before any backend is dialled (refused.go).
	if err := s.identify(rt); err != nil {
		return err
	}
	if done, err := s.transfer(rt); done { // a redirect route (hold.go)
		return err
	}
	// 6. Order the backends, dial down the list, relay (login.go).
	return s.serveLogin(ctx, rt, m)
}

// route matches the handshake's cleaned host against the route table and charges
// the intent's quota. A login to no route is told so.
func (s *session) route() (*compiledRoute, route.Match, error) {
	return s.routeHost(s.hs.Address, s.hs.Protocol, s.hs.Intent)
}

// routeHost is route for a host given by a handshake or a legacy ping.
func (s *session) routeHost(addr string, protocol, intent int32) (*compiledRoute, route.Match, error) {
	host := wire.CleanHost(addr)
	s.ev.VHost, s.ev.Protocol, s.ev.Intent = host, protocol, intent
	m, ok := s.snap.table.Match(host)
	if !ok {
		if intent != wire.IntentStatus {
			_, _ = s.client.Write(s.snap.unknownHost)
		}
		return nil, m, reject(ReasonNoRoute, "no route for host %s", logging.Clip(host))
	}
	rt := s.snap.routes[m.Route]
	s.ev.Route = rt.key
	s.hs.Address = s.forwardAddress(rt, s.hs.Address) // peer.go
	s.emit(EventRouted)
	return rt, m, s.admitIntent()
}

// serveLogin is the login half of a session. Its ways out: handed to a backend (the
// relay ends it), the player left, the proxy is full, the route's target did not
// start in time, or no backend served (the player is told why).
func (s *session) serveLogin(ctx context.Context, rt *compiledRoute, m route.Match) error {
	// An admitted login teaches the route its protocol for status cache keys.
	s.l.protocols.Learn(rt.key, s.hs.Protocol)
	if !s.l.wake.Asleep(rt.key) {
		err := s.login(ctx, rt, s.afterWake(rt, s.planLogin(rt, m)))
		fail, ok := errors.AsType[*noBackend](err)
		if !ok || fail.refusal != nil || !s.l.wake.Bound(rt.key) || ctx.Err() != nil {
			return s.tell(rt, err)
		}
		// Thought awake, but nothing answers: its engine may have stopped it behind
		// our back. The wake Coordinator asks the backends first and wakes it only if
		// they still fail.
	}
	// 7. The route sleeps (hold.go): the login is held while its target wakes, then
	// logs in as above, the backend that answered first.
	rt, plan, err := s.hold(ctx, rt, m)
	if err != nil {
		return err
	}
	return s.tell(rt, s.login(ctx, rt, plan))
}

// tell turns a failed login into what the player is told (refused.go): the proxy is
// full, or no backend served them (the last backend's own "full" answer if one gave
// it, else the route's unavailable text).
func (s *session) tell(rt *compiledRoute, err error) error {
	fail, ok := errors.AsType[*noBackend](err)
	switch {
	case ok && fail.refusal != nil:
		s.sendDisconnect(fail.refusal)
	case ok:
		s.sendDisconnect(rt.unavailable)
	case errors.Is(err, errProxyFull):
		return s.tellProxyFull(err)
	default:
		return err
	}
	return reject(ReasonUnavailable, "%w", fail)
}

// refuseLoop refuses a connection whose peer is the local end of one of the proxy's
// own live backend connections, or that carries a login this proxy is sending to a
// backend right now (reach.Logins: a forwarder or another replica brought it back).
func (s *session) refuseLoop() error {
	if s.l.dials.Refuse(s.client) || s.hs.IsLogin() && s.l.dials.Seen(s.buf, s.playerIP()) {
		return reject(ReasonLoop, "connection from this proxy's own backend dial (a backend address leads back here)")
	}
	return nil
}

// readHandshake reads until one complete handshake frame (or a legacy 0xFE ping) is in
// s.buf. Bytes that arrive after the handshake stay in s.buf after s.raw.
func (s *session) readHandshake() (legacy bool, err error) {
	err = s.readUntil("handshake", wire.MaxHandshakeLen, func() (done bool, err error) {
		done, legacy, err = s.parseHandshake()
		return done, err
	})
	return legacy, err
}

// readUntil reads into s.buf, under the client's read deadline, until parse is done;
// s.buf holds at most about limit bytes. Bytes already there (read past a PROXY
// header or a handshake) are parsed first.
func (s *session) readUntil(what string, limit int, parse func() (done bool, err error)) error {
	if s.buf == nil {
		s.buf = s.l.hsBufs.get()
	}
	for {
		if done, err := parse(); done || err != nil {
			return err
		}
		if len(s.buf) == cap(s.buf) {
			if cap(s.buf) >= limit+8 {
				return reject(ReasonMalformed, "%s larger than %d bytes", what, limit)
			}
			s.buf = append(s.buf, make([]byte, cap(s.buf))...)[:len(s.buf)]
		}
		n, rerr := s.client.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if rerr != nil {
			if done, err := parse(); done || err != nil {
				return err
			}
			return fmt.Errorf("read %s: %w", what, rerr)
		}
	}
}

// parseHandshake tries to parse s.buf; done is false while more bytes are needed.
func (s *session) parseHandshake() (done, legacy bool, err error) {
	if len(s.buf) == 0 {
		return false, false, nil
	}
	if s.buf[0] == 0xFE {
		return true, true, nil
	}
	hs, size, err := wire.ParseHandshake(s.buf)
	switch {
	case err == nil:
		s.hs, s.raw = hs, s.buf[:size]
		return true, false, nil
	case errors.Is(err, wire.ErrIncomplete):
		return false, false, nil
	default:
		return true, false, reject(ReasonMalformed, "handshake: %w", err)
	}
}

// extra is what the client sent after the handshake before we started relaying.
func (s *session) extra() []byte { return s.buf[len(s.raw):] }

// isClientNoise reports errors that clients cause all the time (they hang up, time out,
// reset). They are not the proxy's failures and are logged at debug only.
func isClientNoise(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || (errors.As(err, &ne) && ne.Timeout()) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// earliest returns the earlier of two deadlines.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
