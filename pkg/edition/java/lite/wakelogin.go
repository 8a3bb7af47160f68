package lite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/wake"
)

// readyTimeout bounds one readiness check (dial and status exchange) of a
// backend whose target is waking: a starting server either answers a status
// request quickly or is not ready yet, and the Coordinator polls again.
const readyTimeout = 2 * time.Second

var errNoFactory = errors.New("no wake engines configured in this proxy")

// serveWaking is the login half of a session whose route's target sleeps or is
// waking. The login is held: what the client sends meanwhile is kept (bounded
// like a login-phase failover, see pump), the target is woken (one wake shared
// by every held login) and the backends are polled with real status exchanges
// until one answers. The player then joins as if nothing happened: the kept
// bytes are replayed byte-exact. A player not joined within holdFor gets a
// Login Disconnect saying the server is starting and how long that usually
// takes; the held connection keeps its admission slot all along.
func (s *session) serveWaking(ctx context.Context, rt *compiledRoute, m route.Match) error {
	w := rt.wake
	host := s.ev.VHost
	s.held = true
	// Counted from accept: the client's own read timeout started no later.
	holdCtx, cancel := context.WithDeadline(ctx, s.start.Add(w.holdFor))
	defer cancel()
	// The pump reads under no deadline; it ends by stop (or its bound).
	_ = s.client.SetReadDeadline(time.Time{})
	p := &pump{s: s, cancel: cancel, done: make(chan struct{})}
	go p.run()
	req := w.req
	req.ServerAddress = host
	addr, err := s.l.wake.coord.Wake(holdCtx, w.key, req, s.l.readyCheck(rt.key, host))
	perr := p.stop(time.Time{})
	switch {
	case p.clientErr != nil:
		return fmt.Errorf("%w: %w", errClientLeft, perr)
	case ctx.Err() != nil:
		return reject(ReasonShutdown, "held login of %s: %w", logging.Clip(host), ctx.Err())
	case err != nil:
		s.sendDisconnect(startingDisconnect(host, s.l.wake.coord.TypicalWake(w.key)))
		return reject(ReasonStarting, "target %s not ready within %s: %w", w.key, w.holdFor, err)
	}
	// The route table may have changed while the target started (a discovered
	// route gains the backends that just came up): join by the table now.
	s.snap = s.l.snap.Load()
	if m2, ok := s.snap.table.Match(host); ok {
		rt, m = s.snap.routes[m2.Route], m2
	}
	s.ev.Route = rt.key
	if addr == "" { // the engine named none and no backend was asked: the route's own
		return s.serveLogin(ctx, rt, m)
	}
	return s.joinReady(ctx, rt, m, addr)
}

// joinReady hands the player to addr, the backend that just answered a status
// exchange; if that fails after all, the route's backends are tried as usual.
func (s *session) joinReady(ctx context.Context, rt *compiledRoute, m route.Match, addr string) error {
	// A server that has just started answers its first burst of logins slowly
	// (every held player arrives at once, and a JVM is not warm yet): the
	// first answer may take until the hold runs out, not just the usual
	// first-response timeout.
	budget := time.Now().Add(s.snap.cfg.ConnectionTimeout + s.snap.cfg.Lite.FirstResponseTimeout)
	if held := s.start.Add(rt.wake.holdFor); held.After(budget) {
		budget, s.warming = held, true
		defer func() { s.warming = false }()
	}
	s.ev.Backend, s.ev.BackendTemplate = addr, rt.template(m.Backends, addr)
	lease := s.l.mgr.Reserve(addr)
	backend, first, err := s.attempt(ctx, rt, addr, budget)
	switch {
	case err != nil:
		lease.Settle(0, err)
		lease.Release()
		if errors.Is(err, errClientLeft) {
			return err
		}
		if errors.Is(err, errProxyFull) {
			return s.proxyFull(err)
		}
	default:
		if _, full := backendFull(first.b); !full {
			lease.Settle(first.after, nil)
			return s.join(ctx, rt, backend, first, lease)
		}
		s.l.closeBackend(backend)
		first.release()
		lease.Settle(first.after, nil)
		lease.Release()
	}
	if !slices.Contains(m.Backends, addr) {
		m.Backends = append([]string{addr}, m.Backends...)
	}
	return s.serveLogin(ctx, rt, m)
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
			tmpl, proxyProtocol := addr, false
			if rt != nil {
				// The guard must know which template addr came from ($n filled
				// from the player's host), as for a player's dial.
				tmpl, proxyProtocol = rt.template(m.Backends, addr), rt.cfg.ProxyProtocol
			}
			body, err := l.readyStatus(ctx, addr, tmpl, proxyProtocol)
			if err != nil {
				continue
			}
			if rt != nil && rt.key == routeKey {
				l.wake.observe(rt, body, reportOf(body, 0))
			}
			return addr, true
		}
		return "", false
	}
}

// readyStatus is one status exchange with addr under readyTimeout.
func (l *Lite) readyStatus(ctx context.Context, addr, tmpl string, proxyProtocol bool) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	c, err := l.dial(ctx, addr, tmpl)
	if err != nil {
		return nil, err
	}
	defer l.closeBackend(c)
	out, err := reach.Probe(addr, proxyProtocol)
	if err != nil {
		return nil, err
	}
	body, _, err := exchangeStatus(c, deadline, out)
	if err != nil {
		return nil, fmt.Errorf("ready check of %s: %w", addr, err)
	}
	return body, nil
}

// startingDisconnect is what a held player gets when the server did not start
// in time: which server, and how long it usually takes, so the player knows to
// join again instead of guessing.
func startingDisconnect(host string, typical time.Duration) []byte {
	name := logging.Clip(host)
	if typical <= 0 {
		return disconnectFrame(nil, "The server "+name+" is starting up. Please join again in a moment.")
	}
	return disconnectFrame(nil, "The server "+name+" is starting up; it usually starts in about "+
		aboutDuration(typical)+". Please join again in a moment.")
}

// aboutDuration says d the way a player reads it: "40 seconds", "2 minutes".
func aboutDuration(d time.Duration) string {
	if d < 90*time.Second {
		n := max(5, int((d+2500*time.Millisecond)/(5*time.Second))*5) // to the nearest 5 seconds
		return strconv.Itoa(n) + " seconds"
	}
	return strconv.Itoa(int((d+30*time.Second)/time.Minute)) + " minutes"
}
