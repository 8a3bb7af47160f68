package lite

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// lingerAfterHalfClose is how long the second direction may keep flowing after the first
// one ended cleanly. Minecraft peers close as soon as they read EOF, so this only bounds
// a peer that never does; it is not a per-session timer (it is set once, at the end).
const lingerAfterHalfClose = 2 * time.Second

// Which direction of a session ended first: that side ended the session.
const (
	upFirst   = 1
	downFirst = 2
)

// relay copies bytes both ways until the session ends and returns the byte counts
// (up = client to backend) and why it ended. Between two TCP sockets on Linux each
// direction splices through a pipe borrowed only while bytes flow (relayHalf), and the
// client-to-backend direction parks without a goroutine between bursts (parking), so
// an idle session holds its two sockets and this goroutine, nothing else. A clean end
// of one direction half-closes the other side (FIN) and gives the opposite direction a
// short linger; an error ends both at once.
func (s *session) relay(ctx context.Context, backend net.Conn) (up, down int64, reason string) {
	defer backend.Close()
	s.l.track(backend, true)
	defer s.l.track(backend, false)
	// The handshake deadline must not cut a session that lasts hours.
	_ = s.client.SetDeadline(time.Time{})

	var first atomic.Int32
	u := &upstream{dst: backend, src: s.client, first: &first, done: make(chan struct{})}
	startUpstream(u)
	down, downErr := relayHalf(s.client, backend)
	first.CompareAndSwap(0, downFirst)
	endHalf(s.client, backend, downErr)
	u.stopParking() // so the linger deadline endHalf set (or shutdown's Close) reaches it
	<-u.done
	u.releaseParking()
	up, upErr := u.n, u.err

	switch {
	case ctx.Err() != nil:
		reason = ReasonShutdown
	case first.Load() == upFirst && upErr != nil, first.Load() == downFirst && downErr != nil:
		reason = ReasonError
	case first.Load() == upFirst:
		reason = ReasonClientClosed
	default:
		reason = ReasonBackendClosed
	}
	return up, down, reason
}

// upstream is the client-to-backend direction of a session. The backend-to-client
// direction runs on the session's own goroutine; this one runs on a goroutine of its
// own, or on Linux parks between bursts without one (see parking).
type upstream struct {
	dst, src net.Conn
	first    *atomic.Int32
	done     chan struct{} // closed by finish
	n        int64
	err      error
	park     *parking // nil unless the direction parks
}

// runBlocking runs the whole direction on one goroutine that waits for data.
func (u *upstream) runBlocking() {
	go func() { u.finish(relayHalf(u.dst, u.src)) }()
}

// finish records the direction's end, half-closes the backend and bounds the other
// direction, then lets relay go on. It is the last thing the direction does.
func (u *upstream) finish(n int64, err error) {
	u.n, u.err = n, err
	u.first.CompareAndSwap(0, upFirst)
	endHalf(u.dst, u.src, err)
	close(u.done)
}

// endHalf finishes the direction src -> dst: it half-closes dst (the peer reads EOF)
// and bounds the opposite direction, which reads from dst and writes to src. After a
// clean end it may go on for the linger; after an error it stops now.
func endHalf(dst, src net.Conn, err error) {
	closeWrite(dst)
	deadline := time.Now()
	if err == nil {
		deadline = deadline.Add(lingerAfterHalfClose)
	}
	_ = dst.SetReadDeadline(deadline)
	_ = src.SetWriteDeadline(deadline)
}

type closeWriter interface{ CloseWrite() error }

func closeWrite(c net.Conn) {
	if cw, ok := c.(closeWriter); ok {
		_ = cw.CloseWrite()
		return
	}
	if u, ok := c.(interface{ Raw() net.Conn }); ok {
		closeWrite(u.Raw())
		return
	}
	_ = c.Close()
}

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
