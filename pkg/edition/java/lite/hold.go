package lite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/transfer"
	"go.minekube.com/gate/pkg/lite/wake"
)

// readyTimeout bounds one readiness check (dial and status exchange) of a
// backend whose target is waking: a starting server either answers a status
// request quickly or is not ready yet, and the Coordinator polls again.
const readyTimeout = 2 * time.Second

// hold is the login half of a session whose route's target sleeps or is
// waking (package wake owns the target; this is the player's side). The login
// is held: what the client sends meanwhile is kept (bounded like a login-phase
// failover, see pump), the target is woken (one wake shared by every held
// login) and the backends are polled with real status exchanges until one
// answers. The player then logs in as if nothing happened, to that backend
// first, and the kept bytes are replayed byte-exact. A player not joined
// within holdFor gets a Login Disconnect saying the server is starting and how
// long that usually takes; the held connection keeps its admission slot all
// along.
func (s *session) hold(ctx context.Context, rt *compiledRoute, m route.Match) (*compiledRoute, loginPlan, error) {
	host := s.ev.VHost
	holdFor := rt.cfg.WakeSettings.HoldFor
	// Counted from accept: the client's own read timeout started no later.
	holdCtx, cancel := context.WithDeadline(ctx, s.start.Add(holdFor))
	defer cancel()
	// The pump reads under no deadline; it ends by stop (or its bound).
	_ = s.client.SetReadDeadline(time.Time{})
	p := &pump{s: s, cancel: cancel, done: make(chan struct{})}
	go p.run()
	s.l.held.Add(1)
	addr, err := s.l.wake.Hold(holdCtx, rt.key, host, s.l.readyCheck(rt.key, host))
	s.l.held.Add(-1)
	perr := p.stop(time.Time{})
	switch {
	case p.clientErr != nil:
		return nil, loginPlan{}, fmt.Errorf("%w: %w", errClientLeft, perr)
	case ctx.Err() != nil:
		return nil, loginPlan{}, reject(ReasonShutdown, "held login of %s: %w", logging.Clip(host), ctx.Err())
	case err != nil && transfer.Parkable(s.hs.Protocol, s.ev.Intent, rt.cfg.TransferHold.For):
		return nil, loginPlan{}, s.park(ctx, rt, host)
	case err != nil:
		s.sendDisconnect(startingDisconnect(host, s.l.wake.TypicalWake(rt.key)))
		return nil, loginPlan{}, reject(ReasonStarting, "route %s not ready within %s: %w", rt.key, holdFor, err)
	}
	// The route table may have changed while the target started (a discovered
	// route gains the backends that just came up): log in by the table now.
	s.snap = s.l.snap.Load()
	if m2, ok := s.snap.table.Match(host); ok {
		rt, m = s.snap.routes[m2.Route], m2
	}
	s.ev.Route = rt.key
	plan := s.planLogin(rt, m)
	if addr != "" {
		s.woken(&plan, m, addr, holdFor)
	}
	return rt, plan, nil
}

// transfer is the Transfer packet's part of a login (pkg/lite/transfer). A redirect
// route's player is logged in by the proxy and sent on (done), or told the address
// when their client has no Transfer; a login back from a long hold (park) is replayed
// to the backend as an ordinary one unless the route keeps its intent.
func (s *session) transfer(rt *compiledRoute) (done bool, err error) {
	if h := rt.cfg.TransferHold; h.For > 0 && !h.KeepIntent {
		s.hs.Intent = transfer.AsLogin(s.raw, s.hs.Intent)
	}
	t := rt.cfg.Transfer
	if t == nil {
		return false, nil
	}
	err = transfer.Redirect(s.client, s.hs.Protocol, s.extra(), transfer.Target{Host: t.Host, Port: t.Port}, s.snap.cfg.ReadTimeout)
	switch {
	case errors.Is(err, transfer.ErrUnsupported):
		s.sendDisconnect(transfer.Disconnect(t.String()))
	case errors.Is(err, wire.ErrMalformed), errors.Is(err, wire.ErrTooLarge):
		return true, reject(ReasonMalformed, "%w", err)
	case err != nil:
		return true, err
	}
	s.l.log.V(1).Info("player sent to another address", s.logKV("to", t.String())...)
	return true, nil
}

// park is a long hold: the proxy logs the player in, keeps them in the configuration
// state until the target answers, then sends them back to the address they used
// (transfer.LongHold). The connection ends here: handedOff, nothing left to do.
func (s *session) park(ctx context.Context, rt *compiledRoute, host string) error {
	pctx, cancel := context.WithDeadline(ctx, s.start.Add(rt.cfg.TransferHold.For))
	defer cancel()
	s.l.held.Add(1) // counted as held, and bounded like a held login: by its admission slot
	defer s.l.held.Add(-1)
	notice := startingText(host, s.l.wake.TypicalWake(rt.key), "Stay here: you join as soon as it is up.")
	err := transfer.LongHold{Handshake: s.raw, Pending: s.extra(), Timeout: s.snap.cfg.ReadTimeout, Notice: notice,
		Every: min(transfer.KeepAliveEvery, s.snap.cfg.ReadTimeout/3), Ready: func(ctx context.Context) error {
			_, err := s.l.wake.Hold(ctx, rt.key, host, s.l.readyCheck(rt.key, host))
			return err
		}}.Run(pctx, s.client)
	if err != nil {
		return fmt.Errorf("parked login of %s: %w", logging.Clip(host), err)
	}
	s.close(ctx, nil)
	return handedOff{}
}

// HeldLogins is how many logins are held right now while their route's target wakes.
func (l *Lite) HeldLogins() int64 { return l.held.Load() }

// woken puts addr, the backend that just answered a status exchange, first in
// plan (once: a backend that refuses this login is not asked again). A server
// that has just started answers its first burst of logins slowly (every held
// player arrives at once, and a JVM is not warm yet): its first answer may take
// until the hold runs out, not just the usual first-response timeout.
func (s *session) woken(plan *loginPlan, m route.Match, addr string, holdFor time.Duration) {
	order := append(make([]string, 0, len(plan.order)+1), addr)
	for _, b := range plan.order {
		if b != addr {
			order = append(order, b)
		}
	}
	plan.order = order
	if !slices.Contains(m.Backends, addr) {
		plan.named = addr
	}
	s.warmUp(plan, addr, holdFor)
}

// warmUp lets addr's first answer take until the player's hold would end, when
// that is later than the usual first-response timeout.
func (s *session) warmUp(plan *loginPlan, addr string, holdFor time.Duration) {
	warm := s.start.Add(holdFor)
	if warm.After(time.Now().Add(s.snap.cfg.ConnectionTimeout + s.snap.cfg.Lite.FirstResponseTimeout)) {
		plan.warm, plan.warmUntil = addr, warm
	}
}

// afterWake gives a login that comes within holdFor of its route's target
// answering again (wake.Routes.Warming) the patience of a held one: players a long
// hold sent back arrive all at once at a server that has just started, and failing
// them would eject it and wake it again.
func (s *session) afterWake(rt *compiledRoute, plan loginPlan) loginPlan {
	holdFor := rt.cfg.WakeSettings.HoldFor
	if addr, at, ok := s.l.wake.Warming(rt.key); ok && time.Since(at) < holdFor && slices.Contains(plan.order, addr) {
		s.warmUp(&plan, addr, holdFor)
	}
	return plan
}

// readyCheck is the Coordinator's readiness test for a waking route: a real
// status exchange with each of the route's backends as the live route table
// has them now (backends found after the wake count), the engine's named
// backend first. A backend that only accepts TCP is not ready.
func (l *Lite) readyCheck(routeKey, host string) func(context.Context, wake.Result) (string, bool) {
	return func(ctx context.Context, res wake.Result) (string, bool) {
		snap := l.snap.Load()
		var rt *compiledRoute
		var m route.Match
		var cands []string
		if res.Backend != "" {
			cands = append(cands, res.Backend)
		}
		if mm, ok := snap.table.Match(host); ok {
			rt, m = snap.routes[mm.Route], mm
			cands = append(cands, m.Backends...)
		}
		for _, addr := range cands {
			if ctx.Err() != nil {
				return "", false
			}
			// A backend the engine named, not the operator, is guarded like a
			// template's expansion; for the route's own, the guard must know the
			// template addr came from, as for a player's dial.
			x := statusCall{addr: addr, tmpl: engineNamed}
			if rt != nil && slices.Contains(m.Backends, addr) {
				x.tmpl = snap.dialTemplate(rt, m.Backends, addr)
			}
			proxyProtocol := rt != nil && rt.cfg.ProxyProtocol
			x.preamble = func() ([]byte, error) { return reach.Probe(addr, proxyProtocol) }
			cctx, cancel := context.WithTimeout(ctx, readyTimeout)
			body, rep, err := l.exchange(cctx, x)
			cancel()
			if err != nil {
				continue
			}
			if rt != nil && rt.key == routeKey {
				l.wake.Observe(rt.key, body, rep.Online, rep.HasPlayers)
			}
			return addr, true
		}
		return "", false
	}
}
