//go:build linux

package handover

import (
	"encoding/binary"
	"fmt"
	"net"
	"syscall"
	"time"
)

// Frame types.
const (
	frameHello   byte = iota + 1 // old to new: Version, the listeners' names; their descriptors
	frameReady                   // new to old: Version; it accepts on every listener
	frameSession                 // old to new: a Session; the player's and the backend's socket
	frameAck                     // new to old: Version, 0 adopted or 1 refused, a reason
)

const (
	headerLen = 6
	// maxFDs bounds the descriptors one frame carries (a hello's listeners).
	maxFDs = 8
)

// conn is one end of the hand-over socket: frames out, frames in with the
// descriptors that came with them.
type conn struct {
	c   *net.UnixConn
	in  []byte // read but not yet framed
	fds []int  // received, not yet given to a frame, in arrival order
	oob []byte
	buf []byte
}

func newConn(c *net.UnixConn) *conn {
	return &conn{c: c, oob: make([]byte, syscall.CmsgSpace(4*maxFDs)), buf: make([]byte, 64<<10)}
}

// send writes one frame; fds ride on its first byte (the kernel duplicates them
// into the peer, so the caller still owns its own).
func (c *conn) send(typ byte, payload []byte, fds ...int) error {
	if len(payload) > maxFrame || len(fds) > maxFDs {
		return fmt.Errorf("handover: frame of %d bytes and %d descriptors is over the bounds", len(payload), len(fds))
	}
	msg := make([]byte, headerLen, headerLen+len(payload))
	msg[0], msg[1] = typ, byte(len(fds))
	binary.BigEndian.PutUint32(msg[2:], uint32(len(payload)))
	msg = append(msg, payload...)
	var oob []byte
	if len(fds) > 0 {
		oob = syscall.UnixRights(fds...)
	}
	n, _, err := c.c.WriteMsgUnix(msg, oob, nil)
	if err == nil && n < len(msg) { // a stream socket may take a long frame in parts
		_, err = c.c.Write(msg[n:])
	}
	if err != nil {
		return fmt.Errorf("handover: send: %w", err)
	}
	return nil
}

// recv reads the next frame within d (0: no bound). The frame's descriptors are the
// caller's; on an error none are left open.
func (c *conn) recv(d time.Duration) (typ byte, payload []byte, fds []int, err error) {
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	_ = c.c.SetReadDeadline(deadline)
	for len(c.in) < headerLen || len(c.in) < headerLen+int(binary.BigEndian.Uint32(c.in[2:])) {
		if len(c.in) >= headerLen && (binary.BigEndian.Uint32(c.in[2:]) > maxFrame || c.in[1] > maxFDs) {
			return 0, nil, nil, c.fail(fmt.Errorf("%w: frame over the bounds", ErrMalformed))
		}
		if err := c.fill(); err != nil {
			return 0, nil, nil, c.fail(err)
		}
	}
	typ, nfds, size := c.in[0], int(c.in[1]), int(binary.BigEndian.Uint32(c.in[2:]))
	if nfds > len(c.fds) {
		return 0, nil, nil, c.fail(fmt.Errorf("%w: frame names %d descriptors, %d arrived", ErrMalformed, nfds, len(c.fds)))
	}
	payload = append([]byte(nil), c.in[headerLen:headerLen+size]...)
	c.in = c.in[headerLen+size:]
	fds, c.fds = append([]int(nil), c.fds[:nfds]...), c.fds[nfds:]
	return typ, payload, fds, nil
}

// fill reads what the socket has, and the descriptors that came with it.
func (c *conn) fill() error {
	n, oobn, flags, _, err := c.c.ReadMsgUnix(c.buf, c.oob)
	if oobn > 0 {
		msgs, perr := syscall.ParseSocketControlMessage(c.oob[:oobn])
		for _, m := range msgs {
			fds, _ := syscall.ParseUnixRights(&m)
			c.fds = append(c.fds, fds...)
		}
		if perr != nil {
			return fmt.Errorf("%w: control message: %v", ErrMalformed, perr)
		}
	}
	if flags&syscall.MSG_CTRUNC != 0 {
		return fmt.Errorf("%w: descriptors cut off", ErrMalformed)
	}
	if n > 0 {
		c.in = append(c.in, c.buf[:n]...)
	}
	if err != nil {
		return fmt.Errorf("handover: receive: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("handover: receive: %w", net.ErrClosed)
	}
	return nil
}

// fail closes every descriptor received and not handed out, and returns err.
func (c *conn) fail(err error) error {
	closeAll(c.fds)
	c.fds = nil
	return err
}

func (c *conn) close() error {
	_ = c.fail(nil)
	return c.c.Close()
}

func closeAll(fds []int) {
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}

// versioned checks that a payload starts with Version and returns the rest.
func versioned(what string, p []byte) ([]byte, error) {
	if len(p) == 0 || p[0] != Version {
		return nil, fmt.Errorf("%w: %s of another version", ErrMalformed, what)
	}
	return p[1:], nil
}
