package lite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// maxKept bounds the client bytes a login keeps while it waits for the backend's first
// byte, so that a replay to the next backend is byte-exact. A real client sends nothing
// after Login Start until the server answers; past the bound the proxy stops reading
// the client, and what it sends next waits in the kernel for whichever backend joins.
const maxKept = 16 << 10

var (
	// errClientLeft: the player went away while the login waited for the backend. It
	// wraps context.Canceled, so the attempt says nothing about the backend.
	errClientLeft = fmt.Errorf("client left during login: %w", context.Canceled)
	// errNoFirstByte: the backend took the handshake and sent nothing in time.
	errNoFirstByte = fmt.Errorf("no first byte from the backend in time: %w", strategy.ErrNoAnswer)
	// errClosedEarly: the backend closed or reset before its first byte.
	errClosedEarly = errors.New("backend closed before its first byte")
	// errClientSilent: the player sent nothing after its handshake (no Login Start)
	// until its own deadline. A vanilla server says nothing before Login Start, so the
	// backend's silence is no fault of its: it wraps strategy.ErrNotBackend, and the
	// next backend is not tried for a client that does not speak.
	errClientSilent = fmt.Errorf("client sent no frame after its handshake: %w", strategy.ErrNotBackend)
)

// answerBy is when a backend's first answer is due: wait after the player's first
// frame after the handshake has reached it, and never past limit.
type answerBy struct {
	wait  time.Duration
	limit time.Time
}

func (a answerBy) from(t time.Time) time.Time { return earliest(t.Add(a.wait), a.limit) }

// longAgo is a deadline in the past: it wakes a blocked read at once.
var longAgo = time.Unix(1, 0)

// firstBytes is what the backend sent first, in a pooled buffer, and how long after
// the preamble it came.
type firstBytes struct {
	b     []byte
	after time.Duration
	pool  *handshakeBufs // where b goes back
}

func (f firstBytes) release() {
	if f.pool != nil {
		f.pool.put(f.b)
	}
}

// await waits until the backend's first byte arrives or until it is due (by). The
// clock starts once the player's first frame after the handshake (its Login Start)
// reached the backend: until then only the player's own handshake deadline runs.
// Meanwhile a pump forwards what the client sends to the backend and keeps it in
// s.buf after the preamble bytes (bounded by maxKept), so the next backend can get
// all of it. When await returns, the pump has exited and the client's read deadline
// is back at the handshake deadline: nothing of the wait outlives it.
func (s *session) await(backend net.Conn, addr string, by answerBy) (firstBytes, error) {
	start := time.Now()
	p := &pump{s: s, backend: backend, by: by, done: make(chan struct{})}
	if s.spoke() {
		p.spoke.Store(true)
		_ = backend.SetReadDeadline(by.from(start))
	} else {
		_ = backend.SetReadDeadline(earliest(s.admitted.handshakeBy, by.limit))
	}
	// The pump's reads end by stop, not by the handshake deadline.
	_ = s.client.SetReadDeadline(time.Time{})
	go p.run()
	buf := s.l.hsBufs.get()[:handshakeBufSize]
	unwatch := s.l.mgr.OnStall(addr, p.interrupt) // the fleet shows it went dark: go on
	n, rerr := backend.Read(buf)
	unwatch()
	perr := p.stop(s.admitted.handshakeBy)
	_ = backend.SetReadDeadline(time.Time{})
	first := firstBytes{b: buf[:n], after: time.Since(start), pool: &s.l.hsBufs}
	if n > 0 {
		return first, nil
	}
	first.release()
	switch {
	case p.clientErr != nil:
		return firstBytes{}, fmt.Errorf("%w: %w", errClientLeft, perr)
	case perr != nil:
		return firstBytes{}, fmt.Errorf("forward to %s: %w: %w", addr, errClosedEarly, perr)
	case errors.Is(rerr, os.ErrDeadlineExceeded) && !p.spoke.Load():
		return firstBytes{}, fmt.Errorf("backend %s: %w (%s)", addr, errClientSilent, time.Since(start).Round(time.Millisecond))
	case errors.Is(rerr, os.ErrDeadlineExceeded):
		return firstBytes{}, fmt.Errorf("backend %s: %w (%s)", addr, errNoFirstByte, time.Since(start).Round(time.Millisecond))
	case rerr == nil, errors.Is(rerr, io.EOF):
		return firstBytes{}, fmt.Errorf("backend %s: %w", addr, errClosedEarly)
	default:
		return firstBytes{}, fmt.Errorf("backend %s: %w: %w", addr, errClosedEarly, rerr)
	}
}

// pump forwards client bytes to the backend during one wait for its first byte. With
// no backend (a login held while its target wakes, hold.go) it only keeps them,
// and a client that leaves cancels the hold.
type pump struct {
	s       *session
	backend net.Conn
	by      answerBy // when the backend must answer once the player spoke
	// spoke: the player's first frame after the handshake has reached the backend;
	// set before the backend's answer clock starts.
	spoke    atomic.Bool
	cancel   context.CancelFunc // ends the hold when backend is nil
	stopping atomic.Bool
	done     chan struct{}
	// Written by run before done closes; read after.
	clientErr, backendErr error
}

func (p *pump) run() {
	defer close(p.done)
	s := p.s
	for {
		if len(s.buf) == cap(s.buf) {
			if cap(s.buf) >= maxKept {
				return
			}
			s.buf = slices.Grow(s.buf, min(cap(s.buf), maxKept-cap(s.buf)))
		}
		n, err := s.client.Read(s.buf[len(s.buf):cap(s.buf)])
		if n > 0 {
			chunk := s.buf[len(s.buf) : len(s.buf)+n]
			s.buf = s.buf[:len(s.buf)+n]
			if p.backend != nil { // else held: kept for the backend that joins
				if _, werr := p.backend.Write(chunk); werr != nil {
					p.backendErr = werr
					_ = p.backend.SetReadDeadline(longAgo)
					return
				}
				p.startClock()
			}
		}
		if err != nil {
			// A half-close (EOF) still wants the answer: the relay sees the EOF again
			// and passes it on. Anything else means nobody is left to serve.
			if !p.stopping.Load() && !errors.Is(err, io.EOF) {
				p.clientErr = err
				p.interrupt() // wake the wait: nobody to serve
			}
			return
		}
	}
}

// startClock starts the backend's answer clock once the player's first frame after
// the handshake has been forwarded whole.
func (p *pump) startClock() {
	if p.spoke.Load() || !p.s.spoke() {
		return
	}
	p.spoke.Store(true)
	_ = p.backend.SetReadDeadline(p.by.from(time.Now()))
}

// spoke reports whether the player sent a whole frame after its handshake (a Login
// Start, for a real client).
func (s *session) spoke() bool {
	_, _, _, err := wire.ParseFrame(s.extra(), maxKept)
	return !errors.Is(err, wire.ErrIncomplete)
}

// interrupt ends what the pump's session waits for: the backend's first byte, or
// the hold.
func (p *pump) interrupt() {
	if p.backend == nil {
		p.cancel()
		return
	}
	_ = p.backend.SetReadDeadline(longAgo)
}

// stop ends the pump, waits for it and restores the client's read deadline; it returns
// the error that ended the pump, if any.
func (p *pump) stop(restore time.Time) error {
	p.stopping.Store(true)
	_ = p.s.client.SetReadDeadline(longAgo)
	<-p.done
	_ = p.s.client.SetReadDeadline(restore)
	if p.clientErr != nil {
		return p.clientErr
	}
	return p.backendErr
}
