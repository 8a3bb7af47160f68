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
			body = s.snap.cfg.Lite.Operator.Layer.Status(q.rt.key, q.rt.cfg.Host).Apply(body) // maintenance, overrides
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
	if card, motd, down := s.l.wake.Down(rt.key); down {
		return rt.asleepStatus(card, motd, clientProtocol), SourceAsleep
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
	// One connection timeout bounds the whole exchange, dial included.
	ctx, cancel := context.WithTimeout(context.Background(), q.snap.cfg.ConnectionTimeout)
	defer cancel()
	connected := false // a failed dial is the dial's verdict alone, not a status one too
	body, rep, err := l.exchange(ctx, statusCall{addr: addr, tmpl: l.snap.Load().dialTemplate(rt, q.backends, addr),
		preamble: func() ([]byte, error) {
			return rt.first.Status(hs, addr, reach.Peer{Client: q.client, Local: q.local}, time.Now())
		},
		dialed: func(d time.Duration, err error) {
			l.mgr.ObserveDial(addr, d, err)
			connected = err == nil
		}})
	if connected {
		l.mgr.ObserveStatus(addr, rep, err)
	}
	if err != nil {
		return nil, err
	}
	l.protocols.Reported(rt.key, rep.Protocol)
	l.wake.Observe(rt.key, body, rep.Online, rep.HasPlayers)
	return body, nil
}
