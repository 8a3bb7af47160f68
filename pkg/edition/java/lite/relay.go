package lite

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/relay"
)

// relay copies bytes both ways until the session ends (package relay) and returns the
// byte counts (up = client to backend) and why it ended. The session's part is
// around it: the backend is tracked so shutdown can close it, and the handshake
// deadline is cleared first.
func (s *session) relay(ctx context.Context, backend net.Conn) (up, down int64, reason string) {
	defer backend.Close()
	s.l.track(backend, true)
	defer s.l.track(backend, false)
	// The handshake deadline must not cut a session that lasts hours.
	_ = s.client.SetDeadline(time.Time{})
	r := s.l.rel.Pipe(s.client, backend, relay.Options{})
	return r.Up, r.Down, endReason(ctx, r)
}

// endReason names why a relayed session ended: shutdown, an error of the side that
// ended it, or that side closing cleanly.
func endReason(ctx context.Context, r relay.Result) string {
	switch {
	case ctx.Err() != nil:
		return ReasonShutdown
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
