package relay

import (
	"net"
	"time"
)

// endHalf finishes the direction src -> dst and bounds the opposite direction, which
// reads from dst and writes to src. After a clean end it half-closes dst (the peer
// reads EOF) and the other direction may go on for the linger. After an error (its
// own, or the deadline that cut it) dst's close is made abortive (the peer reads a
// reset: it must not take a cut stream for a whole one), and the other direction
// stops now, so its end makes src's close abortive in turn.
func endHalf(dst, src net.Conn, err error) {
	deadline := time.Now()
	if err == nil {
		closeWrite(dst)
		deadline = deadline.Add(LingerAfterHalfClose)
	} else {
		resetOnClose(dst)
	}
	_ = dst.SetReadDeadline(deadline)
	_ = src.SetWriteDeadline(deadline)
}

// resetOnClose makes c's Close abortive: SO_LINGER 0, so the peer reads a reset and
// what c still queues for it is dropped. A connection that is no TCP socket keeps
// its ordinary close.
func resetOnClose(c net.Conn) {
	if lc, ok := c.(interface{ SetLinger(int) error }); ok {
		_ = lc.SetLinger(0)
		return
	}
	if u, ok := c.(interface{ Raw() net.Conn }); ok {
		resetOnClose(u.Raw())
	}
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
