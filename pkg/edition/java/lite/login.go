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

// loginPlan is how one login walks a route's backends: the try order, the
// budget of the whole walk, and (after a wake) the backend whose first answer
// may take until warmUntil.
type loginPlan struct {
	match     route.Match
	order     []string
	budget    time.Time
	warm      string
	warmUntil time.Time
	// named is a backend a wake engine named that the route does not list (a
	// webhook's reply): dialled through the guard like a template's expansion.
	named string
}

// engineNamed is the template an engine-named backend is dialled under: a host that
// is all capture, so the guard exempts nothing (no loopback, no interface address,
// not the proxy itself).
const engineNamed = "$1"

// noBackend: every backend of the plan failed or refused (or the budget ran
// out). The player has not been told yet (session.run decides whether the
// route's target is woken first); refusal is the last backend's own
// Disconnect, for when one turned the player away.
type noBackend struct {
	refusal    []byte
	turnedAway []string // backends that refused in a text not known to mean full
	tried      int
	last       error
}

func (e *noBackend) Error() string {
	return fmt.Sprintf("every backend failed (%d tried): %v", e.tried, e.last)
}
func (e *noBackend) Unwrap() error { return e.last }

// planLogin orders the route's backends for a login. The walk is bounded by
// the client's read timeout: a player is never kept waiting longer than a
// handshake may take, however many backends are dead.
func (s *session) planLogin(rt *compiledRoute, m route.Match) loginPlan {
	var who strategy.PlayerIdentity // sticky keeps a player together by it
	if s.player != nil {
		who = strategy.PlayerIdentity{Name: s.player.Name, UUID: s.player.UUID}
	}
	s.order = s.l.mgr.AppendOrderFor(s.orderBuf[:0], rt.key, m.Backends, strategy.IntentLogin, who.Key(s.playerIP()))
	return loginPlan{match: m, order: s.order, budget: time.Now().Add(s.snap.cfg.ReadTimeout)}
}

// login tries the plan's backends in turn until one answers, then hands the
// session to the relay (handedOff). An attempt is joined only when the
// backend's first byte arrived (see await), so a backend that accepts and
// then closes, resets or stays silent costs the player nothing: the next
// backend gets the same bytes.
func (s *session) login(ctx context.Context, rt *compiledRoute, plan loginPlan) error {
	fail := &noBackend{tried: len(plan.order)}
	for i, addr := range plan.order {
		if ctx.Err() != nil || !time.Now().Before(plan.budget) {
			break
		}
		j, full, err := s.attempt(ctx, rt, plan, addr)
		switch {
		case err == nil:
			s.l.mgr.Refused(fail.turnedAway...) // no room for a player another backend took
			return s.join(ctx, rt, j)
		case errors.Is(err, errClientLeft), errors.Is(err, errProxyFull):
			return err
		case errors.Is(err, errClientSilent):
			return reject(ReasonTimeout, "%w", err)
		case full != nil:
			fail.refusal = append(fail.refusal[:0], full...)
			if errors.Is(err, errTurnedAway) {
				fail.turnedAway = append(fail.turnedAway, addr)
			}
		}
		fail.last = err
		s.l.log.V(1).Info("backend failed, trying next", s.logKV("err", err.Error())...)
		// The order was fixed before this login learnt anything; other logins may
		// have shown since which backends answer (range reads the re-ordered tail).
		s.l.mgr.Failover(plan.order[i+1:])
	}
	s.ev.Backend, s.ev.BackendTemplate = "", ""
	if fail.last == nil {
		fail.last = errors.New("no backend tried")
	}
	return fail
}

// joinable is a backend that answered a login: its connection, its first
// bytes and the lease that counts the player on it.
type joinable struct {
	backend net.Conn
	first   firstBytes
	lease   *strategy.Lease
}

// attempt is one login attempt with one backend, settled by the same rules on
// every path (ordinary, after a wake): dial, preamble, first byte. A backend
// whose first answer is a "full" Login Disconnect (backendfull.go) served no
// one: it is settled as a failure the strategies see, and full is its frame.
func (s *session) attempt(ctx context.Context, rt *compiledRoute, plan loginPlan, addr string) (joinable, []byte, error) {
	s.ev.Backend, s.ev.BackendTemplate = addr, rt.template(plan.match.Backends, addr)
	tmpl := s.snap.dialTemplate(rt, plan.match.Backends, addr)
	if addr == plan.named {
		tmpl = engineNamed
	}
	lease := s.l.mgr.Reserve(addr)
	backend, err := s.connectBackend(ctx, rt, addr, tmpl, plan.budget)
	var first firstBytes
	if err == nil {
		first, err = s.firstAnswer(backend, addr, plan)
		s.l.dials.End(s.sending)
	}
	var full []byte
	if err == nil {
		if frame, why := backendRefusal(first.b); frame != nil {
			full = append([]byte(nil), frame...)
			first.release()
			s.l.closeBackend(backend)
			err = fmt.Errorf("backend %s: %w", addr, why)
		}
	}
	if err != nil {
		lease.Settle(0, err)
		lease.Release()
		return joinable{}, full, err
	}
	lease.Settle(first.after, nil)
	return joinable{backend: backend, first: first, lease: lease}, nil, nil
}

// firstAnswer waits for the backend's first bytes: within the first-response
// timeout, or until the plan's warm deadline for a server that just started.
func (s *session) firstAnswer(backend net.Conn, addr string, plan loginPlan) (firstBytes, error) {
	by := answerBy{wait: s.l.mgr.Patience(plan.order, s.snap.cfg.Lite.FirstResponseTimeout), limit: plan.budget}
	if addr == plan.warm {
		by = answerBy{wait: time.Until(plan.warmUntil), limit: plan.warmUntil}
	}
	first, err := s.await(backend, addr, by)
	if err != nil {
		if s.l.dials.Looped(backend) {
			err = fmt.Errorf("backend %s: %w", addr, errLooped)
		}
		s.l.closeBackend(backend)
	}
	return first, err
}

// join hands the player to the backend that answered: its first bytes go to the
// player, then the relay runs the session until it ends. From here on the session is
// a relayed (relay.go), and s is not used again.
func (s *session) join(ctx context.Context, rt *compiledRoute, j joinable) error {
	s.emit(EventJoined)
	_ = s.client.SetWriteDeadline(time.Now().Add(s.snap.cfg.ConnectionTimeout))
	_, werr := s.client.Write(j.first.b)
	r := &relayed{conn: s.conn, evCtx: s.ev.context(), ctx: ctx, backend: j.backend, lease: j.lease,
		down: int32(len(j.first.b)), logEnd: s.logSession()}
	r.ev = nil // s's: it would keep the whole session alive
	if s.l.wake.Bound(rt.key) {
		// The target may not sleep while this session lasts (relayed.finish ends it).
		r.holdsWake = true
		s.l.wake.Joined(rt.key, r.evCtx.connID)
	}
	j.first.release()
	// The handshake and what followed it were sent before relaying; the buffer is
	// not needed any more, and an idle session should not keep it.
	r.up = int32(s.releaseBuf())
	if werr != nil {
		s.l.closeBackend(j.backend)
		r.finish(0, 0, ReasonClientClosed)
		return handedOff{}
	}
	r.handOff()
	return handedOff{}
}

// connectBackend dials addr and sends the preamble: PROXY header if the route asks for
// one, the handshake (rewritten only if configured) and every byte read past it.
// tmpl is the configured backend addr came from: the guard exempts only the host that
// template writes out.
func (s *session) connectBackend(ctx context.Context, rt *compiledRoute, addr, tmpl string, budget time.Time) (net.Conn, error) {
	deadline := earliest(time.Now().Add(s.snap.cfg.ConnectionTimeout), budget)
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	start := time.Now()
	backend, err := s.dialAside(dctx, addr, tmpl)
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
	// Recorded before it is sent: a backend that leads back here may bring the login
	// back before the write returns.
	s.sending = s.l.dials.Begin(bufs[len(bufs)-1], s.playerIP())
	_ = backend.SetWriteDeadline(deadline)
	if len(bufs) == 1 {
		_, err = backend.Write(bufs[0])
	} else {
		_, err = bufs.WriteTo(backend)
	}
	if err != nil {
		s.l.dials.End(s.sending)
		return fmt.Errorf("send handshake to %s: %w", addr, err)
	}
	return nil
}
