package lite

import (
	"context"
	"errors"
	"net"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/relay"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// handedOff is what the login path returns once the session belongs to the relay:
// handle must not end the connection, the relay's completion does. (A type rather
// than a sentinel variable: the package keeps no package-level state.)
type handedOff struct{}

func (handedOff) Error() string { return "session handed to the relay" }

// relayed is a joined session while the relay has it: the connection and what its end
// needs, nothing of the handshake. It is what an idle player costs the Go heap, next to
// the relay's own link and the two sockets, so it holds no closure and no buffer.
type relayed struct {
	conn
	evCtx   eventContext    // the events' context; conn.ev is nil until finish
	ctx     context.Context // the sessions' (Serve ends it when the grace does): a session ended by shutdown is counted as such
	backend net.Conn
	lease   *strategy.Lease
	// up and down count the bytes sent before the relay started (the replayed
	// handshake and what followed it, at most maxKept; the backend's first bytes, at
	// most handshakeBufSize): 32 bits hold them, and keep relayed in its size class.
	up, down int32
	logEnd   bool // this session writes the INFO line at its end (sessionLogEvery)
	// holdsWake: the session keeps its route's wake target awake (package wake
	// keeps the hold by connection id); a bool in padding, so sessions of other
	// routes pay nothing.
	holdsWake bool
}

// handOff gives the session to the relay (package relay) and returns at once. The
// handshake deadline is cleared first; relayDone ends the session. Shutdown reaches it
// through the relay's Abort, which ends the pipe (relayDone then closes both
// sockets), so neither socket stays in the instance's tracking set: that map entry
// would be per idle session.
func (j *relayed) handOff() {
	// The handshake deadline must not cut a session that lasts hours.
	c := j.client // an upgrade may move the session, and set j.client, before Start returns
	_ = c.SetDeadline(time.Time{})
	j.l.rel.Start(c, j.backend, relay.Options{}, j.relayDone)
	j.l.track(c, false) // after Start: a drain before it still closes the client
}

// relayDone is the relay's completion: it runs once, on a relay goroutine, when both
// directions have ended.
func (j *relayed) relayDone(r relay.Result) {
	if r.Moved != nil { // an upgrade let go of it (adopt.go)
		j.moveOut(r)
		return
	}
	j.l.closeBackend(j.backend)
	j.finish(r.Up, r.Down, endReason(j.ctx, r))
}

// finish is the end of a joined session, exactly once: EventEnded with the session's
// length and bytes (up = client to backend), the sampled INFO line and the backend's
// lease; then the connection ends.
func (j *relayed) finish(up, down int64, reason string) {
	ev := j.evCtx.event()
	j.ev = &ev
	up, down = int64(j.up)+up, int64(j.down)+down
	dur := time.Since(j.start)
	j.ev.Reason, j.ev.Duration, j.ev.BytesUp, j.ev.BytesDown = reason, dur, up, down
	j.emit(EventEnded)
	if j.logEnd {
		j.l.log.Info("session ended", j.logKV("reason", reason, "duration", dur.Round(time.Millisecond),
			"bytesUp", up, "bytesDown", down)...)
	}
	j.lease.Release()
	if j.holdsWake {
		j.l.wake.Ended(j.evCtx.connID)
	}
	j.end()
}

// endReason names why a relayed session ended: shutdown, an error of the side that
// ended it, or that side closing cleanly.
func endReason(ctx context.Context, r relay.Result) string {
	switch {
	case ctx.Err() != nil:
		return ReasonShutdown
	case errors.Is(r.FirstErr(), relay.ErrClientGone):
		return ReasonClientClosed // the player left; the backend was not reading
	case r.FirstErr() != nil:
		return ReasonError
	case r.First == relay.Client:
		return ReasonClientClosed
	default:
		return ReasonBackendClosed
	}
}

// RelayStats reports what the instance's relay holds now (sessions, parked
// directions, workers, splice pipes), for metrics and tests.
func (l *Lite) RelayStats() relay.Stats { return l.rel.Stats() }
