package lite

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// lingerAfterHalfClose is how long the second direction may keep flowing after the first
// one ended cleanly. Minecraft peers close as soon as they read EOF, so this only bounds
// a peer that never does; it is not a per-session timer (it is set once, at the end).
const lingerAfterHalfClose = 2 * time.Second

// relay copies bytes both ways until the session ends and returns the byte counts
// (up = client to backend) and why it ended. Both directions use io.Copy between the
// connections, which the runtime turns into splice(2) on Linux when both ends are TCP
// sockets, so nothing sits in the copy path. A clean end of one direction half-closes
// the other side (FIN) and gives the opposite direction a short linger; an error ends
// both at once.
func (s *session) relay(ctx context.Context, backend net.Conn) (up, down int64, reason string) {
	defer backend.Close()
	s.l.track(backend, true)
	defer s.l.track(backend, false)
	// The handshake deadline must not cut a session that lasts hours.
	_ = s.client.SetDeadline(time.Time{})

	type result struct {
		n   int64
		err error
	}
	// first records which direction ended first: that side ended the session.
	var first atomic.Int32
	const upFirst, downFirst = 1, 2
	upDone := make(chan result, 1)
	go func() {
		n, err := copyHalf(backend, s.client)
		first.CompareAndSwap(0, upFirst)
		upDone <- result{n, err}
	}()
	down, derr := copyHalf(s.client, backend)
	first.CompareAndSwap(0, downFirst)
	r := <-upDone
	switch {
	case ctx.Err() != nil:
		reason = ReasonShutdown
	case first.Load() == upFirst && r.err != nil, first.Load() == downFirst && derr != nil:
		reason = ReasonError
	case first.Load() == upFirst:
		reason = ReasonClientClosed
	default:
		reason = ReasonBackendClosed
	}
	return r.n, down, reason
}

// copyHalf copies src to dst, then shuts down dst's write side. The opposite direction
// reads from dst, so a read deadline on dst bounds how long that direction may go on.
func copyHalf(dst, src net.Conn) (int64, error) {
	n, err := io.Copy(dst, src)
	linger := time.Now().Add(lingerAfterHalfClose)
	if err != nil {
		// Something broke: end the other direction now instead of waiting.
		linger = time.Now()
	}
	closeWrite(dst)
	_ = dst.SetReadDeadline(linger)
	return n, err
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
