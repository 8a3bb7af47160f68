package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// proxyFullDisconnect is what a player gets when the proxy itself is out of file
// descriptors or memory: not the backend's fault, and not the route's unavailable text.
var proxyFullDisconnect = disconnectFrame(nil, "This proxy is full right now. Please try again in a moment.")

// serveLogin is the login half of a session (login or transfer intent): order the
// route's backends and try them in turn until one answers, then relay until the session
// ends. An attempt is joined only when the backend's first byte arrived (see await), so
// a backend that accepts and then closes, resets or stays silent costs the player
// nothing: the next backend gets the same bytes. A route whose every backend fails gets
// its unavailable text.
func (s *session) serveLogin(ctx context.Context, rt *compiledRoute, m route.Match) error {
	// The whole dial sequence is bounded by the client's read timeout: a player is never
	// kept waiting longer than a handshake may take, however many backends are dead.
	budget := time.Now().Add(s.snap.cfg.ReadTimeout)
	s.order = s.l.mgr.AppendOrder(s.orderBuf[:0], rt.key, m.Backends, strategy.IntentLogin)
	order := s.order
	var lastErr error
	var refusal []byte // the last backend's "full" Disconnect, for when none serves
	for i, addr := range order {
		if ctx.Err() != nil || !time.Now().Before(budget) {
			break
		}
		s.ev.Backend, s.ev.BackendTemplate = addr, rt.template(m.Backends, addr)
		lease := s.l.mgr.Reserve(addr)
		backend, first, err := s.attempt(ctx, rt, addr, budget)
		if err != nil {
			lease.Settle(0, err)
			lease.Release()
			switch {
			case errors.Is(err, errClientLeft):
				return err
			case errors.Is(err, errProxyFull):
				return s.proxyFull(err)
			}
			lastErr = err
			s.l.log.V(1).Info("backend failed, trying next", s.logKV("err", err.Error())...)
			// The order was fixed before this login learnt anything; other logins may
			// have shown since which backends answer (range reads the re-ordered tail).
			s.l.mgr.Failover(order[i+1:])
			continue
		}
		if frame, full := backendFull(first.b); full {
			refusal = append(refusal[:0], frame...)
			lastErr = s.settleFull(addr, backend, first, lease)
			s.l.mgr.Failover(order[i+1:])
			continue
		}
		lease.Settle(first.after, nil)
		return s.join(ctx, rt, backend, first, lease)
	}
	s.ev.Backend, s.ev.BackendTemplate = "", ""
	if rt.wake != nil && !s.held && refusal == nil && ctx.Err() == nil {
		// Thought awake, but nothing answers: its engine may have stopped it
		// behind our back. The Coordinator asks the backends first and wakes it
		// only if they still fail.
		return s.serveWaking(ctx, rt, m)
	}
	_ = s.client.SetWriteDeadline(time.Now().Add(s.snap.cfg.ConnectionTimeout))
	if refusal != nil {
		_, _ = s.client.Write(refusal)
	} else {
		_, _ = s.client.Write(rt.unavailable)
	}
	if lastErr == nil {
		lastErr = errors.New("no backend tried")
	}
	return reject(ReasonUnavailable, "every backend failed (%d tried): %w", len(order), lastErr)
}

// join hands the player to the backend that answered: its first bytes go to the
// player, then the relay runs the session until it ends. From here on the session is
// a relayed (relay.go), and s is not used again.
func (s *session) join(ctx context.Context, rt *compiledRoute, backend net.Conn, first firstBytes, lease *strategy.Lease) error {
	s.emit(EventJoined)
	_ = s.client.SetWriteDeadline(time.Now().Add(s.snap.cfg.ConnectionTimeout))
	_, werr := s.client.Write(first.b)
	j := &relayed{conn: s.conn, evCtx: s.ev.context(), ctx: ctx, backend: backend, lease: lease,
		down: int64(len(first.b)), logEnd: s.logSession()}
	j.ev = nil // s's: it would keep the whole session alive
	if rt.wake != nil {
		// The target may not sleep while this session lasts (relayed.finish ends it).
		j.woke = true
		s.l.wake.startSession(j, rt.wake.key)
	}
	first.release()
	// The handshake and what followed it were sent before relaying; the buffer is
	// not needed any more, and an idle session should not keep it.
	j.up = int64(s.releaseBuf())
	if werr != nil {
		s.l.closeBackend(backend)
		j.finish(0, 0, ReasonClientClosed)
		return handedOff{}
	}
	j.handOff()
	return handedOff{}
}

// proxyFull tells the player the proxy is out of resources. It is logged once per
// interval (the log limiter keys on the message and the sentinel error), counted under
// the proxy-full rejection reason, and never counted against a backend.
func (s *session) proxyFull(err error) error {
	s.l.log.Error(errProxyFull, "proxy out of resources, refusing a player (check the fd limit and maxConnections)", s.logKV("cause", err.Error())...)
	s.ev.Backend, s.ev.BackendTemplate = "", ""
	_ = s.client.SetWriteDeadline(time.Now().Add(s.snap.cfg.ConnectionTimeout))
	_, _ = s.client.Write(proxyFullDisconnect)
	return reject(ReasonProxyFull, "%w", err)
}

// attempt dials addr, sends the preamble and waits for the backend's first byte.
func (s *session) attempt(ctx context.Context, rt *compiledRoute, addr string, budget time.Time) (net.Conn, firstBytes, error) {
	backend, err := s.connectBackend(ctx, rt, addr, budget)
	if err != nil {
		return nil, firstBytes{}, err
	}
	firstBy := earliest(time.Now().Add(s.snap.cfg.Lite.FirstResponseTimeout), budget)
	if s.warming {
		firstBy = budget
	}
	first, err := s.await(backend, addr, firstBy)
	if err != nil {
		if s.l.dials.Looped(backend) {
			err = fmt.Errorf("backend %s: %w", addr, errLooped)
		}
		s.l.closeBackend(backend)
		return nil, firstBytes{}, err
	}
	return backend, first, nil
}

// connectBackend dials addr and sends the preamble: PROXY header if the route asks for
// one, the handshake (rewritten only if configured) and every byte read past it.
func (s *session) connectBackend(ctx context.Context, rt *compiledRoute, addr string, budget time.Time) (net.Conn, error) {
	deadline := earliest(time.Now().Add(s.snap.cfg.ConnectionTimeout), budget)
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	start := time.Now()
	// The event context names the template addr came from (serveLogin sets it): the
	// guard exempts only the host that template writes out.
	backend, err := s.dialAside(dctx, addr, s.ev.BackendTemplate)
	s.ev.Duration, s.ev.Err = time.Since(start), err
	if err == nil {
		// A latency sample; the attempt's verdict is its lease's.
		s.l.mgr.ObserveDial(addr, s.ev.Duration, nil)
	}
	s.emit(EventDial)
	if err != nil {
		return nil, err
	}
	if err := s.sendPreamble(backend, rt, addr, deadline); err != nil {
		s.l.closeBackend(backend)
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
func (s *session) dialAside(ctx context.Context, addr, tmpl string) (net.Conn, error) {
	type dialed struct {
		c   net.Conn
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		c, err := s.l.dial(ctx, addr, tmpl)
		ch <- dialed{c, err}
	}()
	d := <-ch
	return d.c, d.err
}

// sendPreamble writes what the backend must see before relaying starts (the route's
// reach.First: PROXY header, handshake rewritten only if configured, every byte read
// past it). Unrewritten, handshake and extra bytes are s.buf exactly as read, so the
// common case is one write of an existing buffer.
func (s *session) sendPreamble(backend net.Conn, rt *compiledRoute, addr string, deadline time.Time) error {
	bufs, err := rt.first.Login(reach.Login{Raw: s.buf, Handshake: s.hs, Extra: s.extra(), Backend: addr,
		Peer: reach.Peer{Client: s.clientAddr, Local: s.client.LocalAddr()}, Now: time.Now()})
	if err != nil {
		return err
	}
	_ = backend.SetWriteDeadline(deadline)
	if len(bufs) == 1 {
		_, err = backend.Write(bufs[0])
	} else {
		_, err = bufs.WriteTo(backend)
	}
	if err != nil {
		return fmt.Errorf("send handshake to %s: %w", addr, err)
	}
	return nil
}
