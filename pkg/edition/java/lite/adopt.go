package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"

	"go.minekube.com/gate/pkg/edition/java/lite/relay"
	"go.minekube.com/gate/pkg/lite/handover"
	"go.minekube.com/gate/pkg/lite/players"
)

// Mover takes the sessions an upgrade hands to the new process (handover.Handover):
// done learns whether the new process took each one.
type Mover interface {
	Send(s *handover.Session, done func(error))
}

// moves is the instance's side of an upgrade: Serve's sessions' context, which
// adopted sessions join, and HandOff's Mover.
type moves struct {
	mu  sync.Mutex
	ctx context.Context // nil until Serve runs
	to  Mover
}

func (m *moves) state() (context.Context, Mover) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ctx, m.to
}

func (m *moves) set(f func(*moves)) {
	m.mu.Lock()
	f(m)
	m.mu.Unlock()
}

func (m *moves) serve(ctx context.Context) { m.set(func(m *moves) { m.ctx = ctx }) }

// HandOff gives every established session to to, one after another, and so every
// session that joins from now on (those in a handshake, a dial or a wake hold finish
// here first). A session to does not take stays here, and so does every later one.
func (l *Lite) HandOff(to Mover) {
	l.moves.set(func(m *moves) { m.to = to })
	l.rel.Detach()
}

// moveOut hands a session the relay let go of to the new process; moved ends it here
// once that took it.
func (j *relayed) moveOut(r relay.Result) {
	s := &handover.Session{ClientFD: r.Moved.ClientFD, BackendFD: r.Moved.BackendFD, Client: j.clientAddr.String(),
		Route: j.evCtx.route, Backend: j.evCtx.backend, BackendTemplate: j.evCtx.backendTemplate,
		VHost: j.evCtx.vhost, Protocol: j.evCtx.protocol, Intent: j.evCtx.intent, Start: j.start,
		Up: int64(j.up) + r.Up, Down: int64(j.down) + r.Down, HeldUp: r.Moved.Up, HeldDown: r.Moved.Down,
		HoldsWake: j.holdsWake, LogEnd: j.logEnd}
	if p := j.player; p != nil {
		s.Player, s.UUID = p.Name, p.UUID
	}
	l := j.l
	_, to := l.moves.state()
	if to == nil {
		j.moved(r, s, errors.New("no upgrade in progress"))
		return
	}
	to.Send(s, func(err error) {
		if err != nil {
			l.stopMoving(to, err)
		}
		j.moved(r, s, err)
	})
}

// moved ends a session here that the new process took (its wake hold went with it),
// or relays it here again, what was held first.
func (j *relayed) moved(r relay.Result, s *handover.Session, err error) {
	reason := ReasonMoved
	if err != nil {
		client, backend, err := s.Conns()
		if err == nil {
			j.client, j.backend = client, backend
			j.l.rel.Start(client, backend, relay.Options{Pending: relay.Pending{Up: s.HeldUp, Down: s.HeldDown}}, j.after(r))
			return
		}
		reason = ReasonError
	} else {
		s.Close()
		j.holdsWake = false
	}
	j.l.closeBackend(j.backend)
	j.finish(r.Up, r.Down, reason)
}

// stopMoving ends the hand-over to to at its first failure, with one line: the relay
// keeps every session from then on.
func (l *Lite) stopMoving(to Mover, err error) {
	first := false
	l.moves.set(func(m *moves) {
		if first = m.to == to; first {
			m.to = nil
		}
	})
	if first {
		l.rel.Resume()
		l.log.Error(err, "upgrade: the new process took no more sessions; the rest stay in this one")
	}
}

// after is the relay's completion of a session that had moved before bytes already.
func (j *relayed) after(before relay.Result) func(relay.Result) {
	return func(r relay.Result) {
		r.Up, r.Down = r.Up+before.Up, r.Down+before.Down
		j.relayDone(r)
	}
}

// Adopt takes over a session another process of this proxy handed over: it goes on
// where it stopped, counted on its backend (least-connections sees it), the bytes
// the old relay held written first. Adopt owns s's descriptors, also when it fails.
func (l *Lite) Adopt(s *handover.Session) error {
	ctx, _ := l.moves.state()
	if ctx == nil { // taken before Serve runs: it ends as Serve's own sessions do
		ctx = context.Background()
	}
	client, backend, err := s.Conns()
	if err != nil {
		return fmt.Errorf("adopt session: %w", err)
	}
	j := &relayed{conn: conn{l: l, client: client, clientAddr: client.RemoteAddr(), start: s.Start},
		evCtx: eventContext{connID: l.connIDs.Add(1), vhost: s.VHost, protocol: s.Protocol, intent: s.Intent,
			route: s.Route, backend: s.Backend, backendTemplate: s.BackendTemplate},
		ctx: ctx, backend: backend, lease: l.mgr.Reserve(s.Backend), logEnd: s.LogEnd}
	j.lease.Settle(0, nil)
	if ap, err := netip.ParseAddrPort(s.Client); err == nil {
		j.clientAddr = net.TCPAddrFromAddrPort(ap)
	}
	if s.Player != "" {
		j.player = &players.Player{Name: s.Player, UUID: s.UUID}
	}
	l.dials.Add(backend)
	l.live.Add(1)
	l.sessions.Add(1) // Done in conn.gone, at the session's end
	ev := j.evCtx.event()
	j.ev = &ev
	j.emit(EventJoined)
	j.ev = nil
	if j.holdsWake = s.HoldsWake && l.wake.Bound(s.Route); j.holdsWake {
		l.wake.Joined(s.Route, j.evCtx.connID)
	}
	l.rel.Start(client, backend, relay.Options{Pending: relay.Pending{Up: s.HeldUp, Down: s.HeldDown}},
		j.after(relay.Result{Up: s.Up, Down: s.Down}))
	return nil
}
