package lite

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/relay"
)

// handedOff is what the login path returns once the session belongs to the relay:
// handle must not end the connection, the relay's completion does. (A type rather
// than a sentinel variable: the package keeps no package-level state.)
type handedOff struct{}

func (handedOff) Error() string { return "session handed to the relay" }

// startRelay hands a joined session to the relay (package relay) and returns at once.
// The session's part is around it: the handshake deadline is cleared first, and once
// the relay is done the backend is closed and ended gets the byte counts (up = client
// to backend) and why it ended. ended runs once, on a relay goroutine. Shutdown
// reaches the session through the relay's Abort, which ends the pipe (this then
// closes both sockets), so neither socket stays in the instance's tracking set: that
// map entry would be per idle session.
func (s *session) startRelay(ctx context.Context, backend net.Conn, ended func(up, down int64, reason string)) {
	// The handshake deadline must not cut a session that lasts hours.
	_ = s.client.SetDeadline(time.Time{})
	s.l.rel.Start(s.client, backend, relay.Options{}, func(r relay.Result) {
		_ = backend.Close()
		ended(r.Up, r.Down, endReason(ctx, r))
	})
	s.l.track(s.client, false) // after Start: a drain before it still closes the client
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

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
