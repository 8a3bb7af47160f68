package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// maxStatusFrame caps what a client may send in the status state: a Status Request is 2
// bytes and a Ping 10, so anything bigger is not a Minecraft client.
const maxStatusFrame = 64

// statusQuery carries one status request through the status path: the route and the
// matched backends ($n filled), the handshake the backends are asked with, and the host
// pattern that matched, which the answer is cached under (status.Protocols.KeyFor). It also holds what a fetch needs from the session (config
// snapshot, the addresses a PROXY header names), because a fetch may outlive the
// session: the cache shares it between concurrent pings. It is passed by value and
// kept within 128 bytes, so the fetch closure copies it instead of allocating it.
type statusQuery struct {
	snap          *snapshot
	rt            *compiledRoute
	backends      []string
	hs            wire.Handshake
	host          string
	client, local net.Addr
}

// statusQuery starts a status query for the handshake hs, matched to rt as m.
func (s *session) statusQuery(rt *compiledRoute, m route.Match, hs wire.Handshake) statusQuery {
	return statusQuery{snap: s.snap, rt: rt, backends: m.Backends, hs: hs, host: m.Pattern, client: s.clientAddr, local: s.client.LocalAddr()}
}

// serveStatus runs the status state for one client: at most one Status Request answered
// from the cache, a backend or the fallback, then a Ping answered locally, then close.
// Clients that skip the request and ping directly get their pong.
func (s *session) serveStatus(ctx context.Context, q statusQuery) error {
	pending := s.extra()
	answered := false
	for {
		id, payload, n, err := wire.ParseFrame(pending, maxStatusFrame)
		if errors.Is(err, wire.ErrIncomplete) {
			pending, err = s.readMore(pending)
			if err != nil && answered {
				return nil // answered: a client that leaves without a Ping is no failure
			}
			if err != nil {
				return fmt.Errorf("read status frame: %w", err)
			}
			continue
		}
		if err != nil {
			return reject(ReasonMalformed, "status frame: %w", err)
		}
		pending = pending[n:]
		switch {
		case id == wire.IDStatusRequest && len(payload) == 0 && !answered:
			answered = true
			body, src := s.statusBody(ctx, q)
			if body == nil {
				return reject(ReasonUnavailable, "no status available (every backend failed, no fallback)")
			}
			s.ev.Source = src
			s.emit(EventStatus)
			if _, err := s.client.Write(wire.AppendStatusResponse(nil, body)); err != nil {
				return fmt.Errorf("write status: %w", err)
			}
		case id == wire.IDPing:
			v, err := wire.ParsePing(payload)
			if err != nil {
				return reject(ReasonMalformed, "ping: %w", err)
			}
			_, _ = s.client.Write(wire.AppendPing(nil, v))
			return nil
		default:
			return reject(ReasonMalformed, "unexpected status frame id %d", id)
		}
	}
}

// readMore appends what the client sends next to pending (under the session deadline).
func (s *session) readMore(pending []byte) ([]byte, error) {
	if len(pending) >= maxStatusFrame {
		return pending, reject(ReasonMalformed, "status frame too large")
	}
	var tmp [maxStatusFrame]byte
	n, err := s.client.Read(tmp[:maxStatusFrame-len(pending)])
	pending = append(pending, tmp[:n]...)
	if n > 0 {
		return pending, nil
	}
	return pending, err
}

// statusBody finds the Status Response JSON for a route: per backend in strategy order,
// a cached answer or a fresh one from the backend; then the route's fallback; then the
// last good answer if it is recent; else nil (the caller closes).
func (s *session) statusBody(ctx context.Context, q statusQuery) ([]byte, string) {
	rt, clientProtocol := q.rt, q.hs.Protocol
	if s.l.wake.asleep(rt) {
		// Never wakes the target: a ping is not a player.
		return s.l.wake.asleepStatus(rt, clientProtocol), SourceAsleep
	}
	s.order = s.l.mgr.AppendOrder(s.orderBuf[:0], rt.key, q.backends, strategy.IntentStatus)
	order := s.order
	var key status.Key
	for _, addr := range order {
		key = s.l.protocols.KeyFor(rt.key, addr, q.host, clientProtocol)
		q.hs.Protocol = s.l.protocols.FetchProtocol(rt.key, key.Protocol)
		body, hit, err := s.l.cache.Get(ctx, key, rt.cfg.CachePingTTL, func() ([]byte, error) {
			return s.l.fetchStatus(q, addr)
		})
		if err == nil {
			if rt.cfg.Status == config.StatusAggregate {
				body = s.l.aggregate(rt, q.backends, body)
			}
			if hit {
				return body, SourceCache
			}
			return body, SourceBackend
		}
		s.l.log.V(1).Info("backend status failed", s.logKV("backend", addr, "err", err.Error())...)
	}
	if rt.fallback != nil {
		return rt.fallback.Render(clientProtocol), SourceFallback
	}
	for _, v := range []int32{key.Protocol, status.UnknownProtocol} {
		if body, ok := s.l.cache.LastGood(rt.key, v, q.host); ok {
			return body, SourceLastGood
		}
	}
	return nil, ""
}

// aggregate replaces the players online and max of body with the sums over the route's
// healthy backends (status: aggregate), so a balanced route shows as one server. The
// rest of the response, sample included, is the backend's. Without any fresh report,
// or if body is not a JSON object, body is returned as it is.
func (l *Lite) aggregate(rt *compiledRoute, backends []string, body []byte) []byte {
	online, maxPlayers, ok := l.mgr.Players(rt.key, backends)
	if !ok {
		return body
	}
	return status.WithPlayers(body, online, maxPlayers)
}

// fetchStatus performs one status exchange of q with the backend addr, as the player
// would, under one deadline for dial and exchange. It runs detached from the client
// (the status cache shares it between concurrent pings), so it has its own context.
func (l *Lite) fetchStatus(q statusQuery, addr string) ([]byte, error) {
	rt, hs := q.rt, q.hs
	ctx, cancel := context.WithTimeout(context.Background(), q.snap.statusTimeout())
	defer cancel()
	deadline, _ := ctx.Deadline()
	start := time.Now()
	c, err := l.dial(ctx, addr, rt.template(q.backends, addr))
	l.mgr.ObserveDial(addr, time.Since(start), err)
	if err != nil {
		return nil, err
	}
	defer l.closeBackend(c)
	out, err := rt.first.Status(hs, addr, reach.Peer{Client: q.client, Local: q.local}, time.Now())
	if err != nil {
		return nil, err
	}
	body, rtt, err := exchangeStatus(c, deadline, out)
	if err != nil && l.dials.Looped(c) {
		err = fmt.Errorf("%w: %w", errLooped, err)
	}
	rep := reportOf(body, rtt)
	l.mgr.ObserveStatus(addr, rep, err)
	if err == nil {
		l.protocols.Reported(rt.key, rep.Protocol)
		l.wake.observe(rt, body, rep)
	}
	if err != nil {
		return nil, fmt.Errorf("status from %s: %w", addr, err)
	}
	return body, nil
}

// exchangeStatus writes out (what the backend sees first, ending in a Status Request,
// package reach), then reads the Status Response. rtt is measured from the request
// write to the complete response.
func exchangeStatus(c net.Conn, deadline time.Time, out []byte) ([]byte, time.Duration, error) {
	_ = c.SetDeadline(deadline)
	start := time.Now()
	if _, err := c.Write(out); err != nil {
		return nil, 0, fmt.Errorf("write status request: %w", err)
	}
	buf := make([]byte, 0, 1024)
	for {
		id, payload, _, err := wire.ParseFrame(buf, wire.MaxStatusResponseLen)
		if err == nil {
			if id != wire.IDStatusRequest {
				return nil, 0, fmt.Errorf("unexpected status response id %d", id)
			}
			body, err := wire.ParseStatusResponse(payload)
			return body, time.Since(start), err
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return nil, 0, fmt.Errorf("status response: %w", err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		n, rerr := c.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr != nil && n == 0 {
			return nil, 0, fmt.Errorf("read status response: %w", rerr)
		}
	}
}

// reportOf turns a Status Response into what strategies learn from it.
func reportOf(body []byte, rtt time.Duration) strategy.Report {
	r := strategy.Report{RTT: rtt}
	if body == nil {
		return r
	}
	rep, err := status.ParseReport(body)
	if err != nil {
		return r
	}
	r.Online, r.Max, r.HasPlayers = rep.Online, rep.Max, rep.HasPlayers
	r.Version, r.Protocol, r.MOTD = rep.VersionName, rep.Protocol, rep.MOTD
	return r
}
