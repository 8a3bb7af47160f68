//go:build linux

package handover

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
)

// Inherited is the new process's side: the listeners it was given, then the sessions.
type Inherited struct {
	c         *conn
	listeners map[string]*os.File
}

// Inherit returns the hand-over this process was started for, or nil when it was
// started as usual (no EnvFD). It reads the listeners at once.
func Inherit() (*Inherited, error) {
	fd, ok, err := fdFromEnv()
	if !ok || err != nil {
		return nil, err
	}
	c, err := unixConn(fd, "handover")
	if err != nil {
		return nil, err
	}
	h := &Inherited{c: c, listeners: map[string]*os.File{}}
	if err := h.hello(); err != nil {
		_ = c.close()
		return nil, err
	}
	return h, nil
}

func (h *Inherited) hello() error {
	typ, p, fds, err := h.c.recv(ReadyTimeout)
	if err == nil && typ != frameHello {
		err = fmt.Errorf("%w: frame %d instead of hello", ErrMalformed, typ)
	}
	if err == nil {
		p, err = versioned("hello", p)
	}
	r := reader{b: p}
	if n := int(r.byte()); err == nil && n != len(fds) {
		err = fmt.Errorf("%w: %d listener names for %d descriptors", ErrMalformed, n, len(fds))
	}
	for i := 0; err == nil && i < len(fds); i++ {
		name := string(r.bytes(maxText))
		err = r.err
		h.listeners[name] = os.NewFile(uintptr(fds[i]), name)
	}
	if err != nil {
		closeAll(fds)
		h.listeners = nil
		return fmt.Errorf("handover hello: %w", err)
	}
	return nil
}

// Listener takes the listener handed over as name; false when none was.
func (h *Inherited) Listener(name string) (net.Listener, bool, error) {
	f := h.listeners[name]
	if f == nil {
		return nil, false, nil
	}
	delete(h.listeners, name)
	ln, err := net.FileListener(f)
	_ = f.Close()
	if err != nil {
		return nil, false, fmt.Errorf("inherited listener %s: %w", name, err)
	}
	return ln, true, nil
}

// Ready tells the old process this one accepts on its listeners; the old one stops
// accepting and starts sending sessions.
func (h *Inherited) Ready() error {
	for _, f := range h.listeners { // handed over but not asked for: not ours to keep
		_ = f.Close()
	}
	h.listeners = nil
	return h.c.send(frameReady, []byte{Version})
}

// Receive adopts sessions until the old process hangs up (nil) or the hand-over
// fails. adopt owns a session's descriptors (it closes them when it fails); a
// session it refuses stays the old process's.
func (h *Inherited) Receive(adopt func(*Session) error) error {
	for {
		typ, p, fds, err := h.c.recv(0)
		if errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if typ != frameSession || len(fds) != 2 {
			closeAll(fds)
			return fmt.Errorf("%w: frame %d with %d descriptors instead of a session", ErrMalformed, typ, len(fds))
		}
		s, err := ParseSession(p)
		if err != nil {
			closeAll(fds)
		} else {
			s.ClientFD, s.BackendFD = fds[0], fds[1]
			err = adopt(&s)
		}
		ack := []byte{Version, 0}
		if err != nil {
			ack = append([]byte{Version, 1}, err.Error()...)
		}
		if err := h.c.send(frameAck, ack); err != nil {
			return err
		}
	}
}

// Close ends the new process's side.
func (h *Inherited) Close() error { return h.c.close() }
