package lite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// session is one client connection from accept to close. It carries the config
// snapshot it started with, so a reload never changes its rules mid-flight.
type session struct {
	l      *Lite
	snap   *snapshot
	client net.Conn
	// clientAddr is the player's address: from a trusted PROXY header, else the socket's.
	clientAddr net.Addr
	start      time.Time

	buf []byte // bytes read from the client so far
	hs  wire.Handshake
	raw []byte // the handshake frame exactly as received
	// order is the backends' try order; orderBuf backs it so ordering does not allocate
	// for routes of up to len(orderBuf) backends.
	order    []string
	orderBuf [4]string

	// ev carries the fields every event of this connection shares; it is reused for
	// each event so observing costs no allocation.
	ev     Event
	joined bool
	adm    admissionState
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

// handle is the whole life of one client connection.
func (l *Lite) handle(ctx context.Context, c net.Conn) {
	s := &session{l: l, snap: l.snap.Load(), client: c, clientAddr: c.RemoteAddr(), start: time.Now()}
	s.ev.ConnID = l.connIDs.Add(1)
	defer c.Close()
	defer s.releaseBuf()
	s.emit(EventAccepted)
	defer s.releaseAdmission()
	err := s.admit()
	if err == nil {
		err = s.run(ctx)
	}
	if err != nil && !s.joined {
		s.ev.Reason, s.ev.Err = rejectReason(ctx, err), err
		s.emit(EventRejected)
		if _, ok := errors.AsType[*rejection](err); ok || isClientNoise(err) {
			s.l.log.V(1).Info("connection closed", s.logKV("reason", err.Error())...)
		} else {
			s.l.log.Error(err, "connection failed", s.logKV()...)
		}
	}
	s.emit(EventClosed)
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
func (s *session) emit(kind EventKind) {
	if s.l.obs == nil {
		return
	}
	s.ev.Kind, s.ev.Time, s.ev.Client = kind, time.Now(), s.clientAddr
	s.l.obs.Observe(&s.ev)
	// Per-event fields must not leak into the next event; the connection's context
	// (VHost, Route, Backend, ...) stays.
	s.ev.Reason, s.ev.Source, s.ev.Err, s.ev.Duration, s.ev.BytesUp, s.ev.BytesDown = "", "", nil, 0, 0, 0
}

// logKV is the session's structured context for a log line, plus extra pairs.
func (s *session) logKV(extra ...any) []any {
	kv := []any{"client", s.clientAddr.String()}
	if s.ev.VHost != "" {
		kv = append(kv, "vhost", s.ev.VHost, "protocol", s.ev.Protocol)
	}
	if s.ev.Route != "" {
		kv = append(kv, "route", s.ev.Route)
	}
	if s.ev.Backend != "" {
		kv = append(kv, "backend", s.ev.Backend)
	}
	return append(kv, extra...)
}

func (s *session) run(ctx context.Context) error {
	// 1. Read the first frame under readTimeout with a hard size cap.
	legacy, err := s.readHandshake()
	if err != nil {
		return err
	}
	if legacy {
		return s.serveLegacy(ctx)
	}

	// 2. Match the cleaned host against the route table.
	host := wire.CleanHost(s.hs.Address)
	s.ev.VHost, s.ev.Protocol, s.ev.Intent = host, s.hs.Protocol, s.hs.Intent
	m, ok := s.snap.table.Match(host)
	if !ok {
		if s.hs.IsLogin() {
			_, _ = s.client.Write(s.snap.unknownHost)
		}
		return reject(ReasonNoRoute, "no route for host %q", host)
	}
	rt := s.snap.routes[m.Route]
	s.ev.Route = rt.key
	s.emit(EventRouted)
	if err := s.admitIntent(); err != nil {
		return err
	}

	// 3. Status intent: answered by the proxy (cache, backend, fallback).
	if s.hs.Intent == wire.IntentStatus {
		return s.serveStatus(ctx, rt, m, host)
	}
	// 4. Login or transfer: order the backends, dial down the list, relay.
	return s.serveLogin(ctx, rt, m)
}

// readHandshake reads until one complete handshake frame (or a legacy 0xFE ping) is in
// s.buf. Bytes that arrive after the handshake stay in s.buf after s.raw.
func (s *session) readHandshake() (legacy bool, err error) {
	if s.buf == nil {
		s.buf = newHandshakeBuf()
	}
	for first := true; ; first = false {
		if first && len(s.buf) > 0 {
			// admit may already hold bytes read past a PROXY header.
			if done, legacy, err := s.parseHandshake(); done || err != nil {
				return legacy, err
			}
		}
		if len(s.buf) == cap(s.buf) {
			if cap(s.buf) >= wire.MaxHandshakeLen+8 {
				return false, reject(ReasonMalformed, "handshake larger than %d bytes", wire.MaxHandshakeLen)
			}
			s.buf = append(s.buf, make([]byte, cap(s.buf))...)[:len(s.buf)]
		}
		n, rerr := s.client.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if done, legacy, err := s.parseHandshake(); done || err != nil {
			return legacy, err
		}
		if rerr != nil {
			return false, fmt.Errorf("read handshake: %w", rerr)
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

func (s *session) serveLogin(ctx context.Context, rt *compiledRoute, m route.Match) error {
	// The whole dial sequence is bounded by the client's read timeout: a player is never
	// kept waiting longer than a handshake may take, however many backends are dead.
	budget := time.Now().Add(s.snap.cfg.ReadTimeout)
	s.order = s.l.mgr.AppendOrder(s.orderBuf[:0], rt.key, m.Backends, strategy.IntentLogin)
	order := s.order
	var lastErr error
	for _, addr := range order {
		if ctx.Err() != nil || !time.Now().Before(budget) {
			break
		}
		s.ev.Backend, s.ev.BackendTemplate = addr, rt.template(m.Backends, addr)
		lease := s.l.mgr.Reserve(addr)
		backend, err := s.connectBackend(ctx, rt, addr, budget)
		if err != nil {
			lease.Release()
			lastErr = err
			s.l.log.V(1).Info("backend failed, trying next", s.logKV("err", err.Error())...)
			continue
		}
		s.joined = true
		s.emit(EventJoined)
		// The handshake and what followed it were sent before relaying; the buffer is
		// not needed any more, and an idle session should not keep it.
		sent := int64(s.releaseBuf())
		up, down, reason := s.relay(ctx, backend)
		up += sent
		lease.Release()
		dur := time.Since(s.start)
		s.ev.Reason, s.ev.Duration, s.ev.BytesUp, s.ev.BytesDown = reason, dur, up, down
		s.emit(EventEnded)
		s.l.log.Info("session ended", s.logKV("reason", reason, "duration", dur.Round(time.Millisecond),
			"bytesUp", up, "bytesDown", down)...)
		return nil
	}
	s.ev.Backend, s.ev.BackendTemplate = "", ""
	_ = s.client.SetWriteDeadline(time.Now().Add(s.snap.cfg.ConnectionTimeout))
	_, _ = s.client.Write(rt.unavailable)
	if lastErr == nil {
		lastErr = errors.New("no backend tried")
	}
	return reject(ReasonUnavailable, "every backend failed (%d tried): %w", len(order), lastErr)
}

// connectBackend dials addr and sends the preamble: PROXY header if the route asks for
// one, the handshake (rewritten only if configured) and every byte read past it.
func (s *session) connectBackend(ctx context.Context, rt *compiledRoute, addr string, budget time.Time) (net.Conn, error) {
	deadline := earliest(time.Now().Add(s.snap.cfg.ConnectionTimeout), budget)
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	start := time.Now()
	backend, err := s.dialAside(dctx, addr)
	s.ev.Duration, s.ev.Err = time.Since(start), err
	s.l.mgr.ObserveDial(addr, s.ev.Duration, err)
	s.emit(EventDial)
	if err != nil {
		return nil, err
	}
	if err := s.sendPreamble(backend, rt, addr, deadline); err != nil {
		_ = backend.Close()
		return nil, err
	}
	_ = backend.SetWriteDeadline(time.Time{})
	return backend, nil
}

// dialAside dials on a short-lived goroutine of its own. The net package's dial path
// is deep: run here it would grow the session goroutine's stack from 4 to 8 KiB, and a
// session keeps that stack for as long as the player stays (the runtime shrinks a
// stack only when under a quarter of it is in use, which a goroutine parked in relay
// never is). One goroutine start per dial buys 4 KiB less per idle player.
func (s *session) dialAside(ctx context.Context, addr string) (net.Conn, error) {
	type dialed struct {
		c   net.Conn
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		c, err := s.l.dial(ctx, addr)
		ch <- dialed{c, err}
	}()
	d := <-ch
	return d.c, d.err
}

// sendPreamble writes what the backend must see before relaying starts: a PROXY header
// if the route asks for one, the handshake (rewritten only if configured) and every byte
// read past it. Unrewritten, handshake and extra bytes are s.buf exactly as read, so the
// common case is one write of an existing buffer.
func (s *session) sendPreamble(backend net.Conn, rt *compiledRoute, addr string, deadline time.Time) error {
	payload := s.buf
	if rt.cfg.ModifyVirtualHost || rt.cfg.TCPShieldRealIP {
		payload = wire.AppendHandshake(nil, rewriteHandshake(s.hs, rt, addr, s.clientAddr, time.Now()))
		payload = append(payload, s.extra()...)
	}
	_ = backend.SetWriteDeadline(deadline)
	var err error
	if rt.cfg.ProxyProtocol {
		hdr, herr := proxyHeader(s.clientAddr, s.client.LocalAddr())
		if herr != nil {
			return fmt.Errorf("proxy header for %s: %w", addr, herr)
		}
		bufs := net.Buffers{hdr, payload}
		_, err = bufs.WriteTo(backend)
	} else {
		_, err = backend.Write(payload)
	}
	if err != nil {
		return fmt.Errorf("send handshake to %s: %w", addr, err)
	}
	return nil
}

// isClientNoise reports errors that clients cause all the time (they hang up, time out,
// reset). They are not the proxy's failures and are logged at debug only.
func isClientNoise(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || (errors.As(err, &ne) && ne.Timeout()) ||
		isConnReset(err)
}

// earliest returns the earlier of two deadlines.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
