package lite

import (
	"context"
	"net"
	"runtime"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/relay"
)

// The open-files budget. A proxy out of descriptors cannot accept, so a player past
// it would wait in the listen backlog for its whole timeout with no answer, and the
// admin API could not answer a liveness probe either. As HAProxy derives maxconn from
// the limit, Serve derives how many connections it handles at once from the soft
// RLIMIT_NOFILE, keeps the rest for everything else, and tells every player past the
// cap that the proxy is full. The cap in force is the lower of it and
// config.quota.maxConnections (admission enforces that one).

// AdminConns is how many connections the admin API holds open at once (package admin
// enforces it): the budget keeps their descriptors out of the players' share, so
// /healthz answers however full the proxy is.
const AdminConns = 16

const (
	// fdFixed: stdio, the runtime's poller, the listeners, log files, the config
	// watcher. The relay's epoll descriptors (one per GOMAXPROCS) come on top.
	fdFixed = 32
	// fdProbes: health probes and status fetches not tied to one connection.
	fdProbes = 16
	// fdsPerConn: the player's socket and one backend socket (a login's dial, a status
	// fetch, the joined session's backend).
	fdsPerConn = 2
	// maxDialExtra bounds the budget's room for a dial's short-lived extra sockets
	// (DNS lookups, the second address family of a dual-stack host).
	maxDialExtra = 64
)

// fdBudget splits an open-files limit.
type fdBudget struct {
	limit uint64
	// conns is how many connections are handled at once: the cap.
	conns int
	// refusals is how many connections past the cap may be held at once while they
	// are told the proxy is full (each one descriptor for a moment).
	refusals int
	// reserve is what the rest keeps: fixed, admin, probes, pipes, dial extras.
	reserve int
}

// budgetFor splits limit for a process with procs relay pollers. A tiny limit still
// gets one connection and one refusal slot; the reserve then is what is left.
func budgetFor(limit uint64, procs int) fdBudget {
	reserve := fdFixed + procs + AdminConns + fdProbes + relay.PipeFDs(limit)
	rest := max(0, int(min(limit, 1<<30))-reserve)
	refusals := min(max(rest/16, 1), maxRefusalReplies)
	dialExtra := min(max(rest/16, 1), maxDialExtra)
	b := fdBudget{limit: limit, refusals: refusals, reserve: reserve + dialExtra}
	b.conns = max(1, (rest-refusals-dialExtra)/fdsPerConn)
	return b
}

// applyFDBudget reads the open-files limit as Serve starts (after the process may
// have raised it) and sets the connection cap and the refusal slots from it.
func (l *Lite) applyFDBudget() {
	limit, err := fdLimitNow()
	if err != nil {
		l.fdCap = 0 // unknown: admission's maxConnections alone
		return
	}
	b := budgetFor(limit, runtime.GOMAXPROCS(0))
	l.fdCap = int64(b.conns)
	l.refusing = make(chan struct{}, b.refusals)
	configured := l.snap.Load().cfg.Quota.MaxConnections
	kv := []any{"limit", limit, "connections", b.conns, "proxyFullReplies", b.refusals, "reserved", b.reserve}
	if configured > 0 && configured <= b.conns {
		l.log.V(1).Info("open-files budget", kv...)
		return
	}
	l.log.Info("warning: the open-files limit caps the connections handled at once below config.quota.maxConnections; "+
		"players past it get the proxy-full text (raise the hard limit: LimitNOFILE= in systemd, --ulimit nofile= in docker)",
		append(kv, "maxConnections", configured)...)
}

// awaitRoom is the accept loop's gate, run before each Accept: it returns at once
// while the connections handled are under the cap; at the cap it waits for a refusal
// slot (refuse: the next connection is told the proxy is full) or for a connection
// to end. Meanwhile new players wait in the listen backlog, not in the process's
// descriptors, so accept never fails for want of one. ok is false once ctx ended.
func (l *Lite) awaitRoom(ctx context.Context) (refuse, ok bool) {
	for {
		if !l.atCap() {
			return false, true
		}
		select {
		case l.refusing <- struct{}{}:
			return true, true
		case <-l.freed:
		case <-ctx.Done():
			return false, false
		}
	}
}

// atCap reports the connections being handled (refusals being told why are not
// handled) at the open-files cap.
func (l *Lite) atCap() bool {
	return l.fdCap > 0 && l.live.Load()-int64(len(l.refusing)) >= l.fdCap
}

// refuseFull tells a connection accepted past the open-files cap that the proxy is
// full and closes it; it holds a refusal slot, which it gives back once the socket is
// closed (session.close). A login gets the proxy-full Login Disconnect; a status ping or legacy ping
// is closed (a status answer would need a backend socket, which the cap has none for).
func (l *Lite) refuseFull(ctx context.Context, c net.Conn) {
	s := &session{conn: conn{l: l, client: c, clientAddr: c.RemoteAddr(), start: time.Now()}, snap: l.snap.Load(), refusal: true}
	s.ev = &s.event
	s.ev.ConnID = l.connIDs.Add(1)
	s.emit(EventAccepted)
	s.close(ctx, s.tellFull())
}

// tellFull reads the handshake within a short deadline (a real client sends it at
// once) and answers a login with the proxy-full text.
func (s *session) tellFull() error {
	_ = s.client.SetReadDeadline(s.start.Add(min(refusalReadTimeout, s.snap.cfg.Quota.FirstByteTimeout)))
	l := s.l
	l.log.Error(errProxyFull, "open-files cap reached, refusing a player (raise the hard open-files limit)", "cap", l.fdCap)
	if s.snap.cfg.ProxyProtocol && s.trusted() {
		if _, _, err := s.readProxyHeader(); err != nil {
			return reject(ReasonProxyFull, "at the open-files cap of %d connections; proxy header: %w", l.fdCap, err)
		}
	}
	if legacy, err := s.readHandshake(); err == nil && !legacy && s.hs.IsLogin() {
		s.sendDisconnect(proxyFullDisconnect)
	}
	return reject(ReasonProxyFull, "at the open-files cap of %d connections", l.fdCap)
}
