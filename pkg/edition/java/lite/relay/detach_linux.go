//go:build linux

package relay

import "syscall"

// detach lets go of a parked pipe whose directions both still run (Detach): its
// sockets leave the poller unclosed, what it holds is copied out, and its owner's
// callback gets them as Result.Moved. False, with nothing changed, for a pipe that
// is not parked or whose session is ending.
func (l *link) detach() bool {
	lp := &l.lp
	if lp.p == nil {
		return false
	}
	lp.mu.Lock()
	if lp.closed || l.up.io.state == dirEnded || l.down.io.state == dirEnded {
		lp.mu.Unlock()
		return false
	}
	m := &Moved{ClientFD: lp.fd[sockClient], BackendFD: lp.fd[sockBackend]}
	// closed: an event the poller fetched already finds nothing to do.
	lp.closed = true
	l.timerStep(tmClosed)
	for s := range lp.fd {
		lp.p.del(lp.fd[s])
		lp.p.forget(lp.id[s])
	}
	m.Up, m.Down = l.letGo(&l.up), l.letGo(&l.down)
	lp.mu.Unlock()
	l.end(Result{Up: l.up.n, Down: l.down.n, Moved: m})
	return true
}

// letGo ends d for a move and returns the bytes it held (a packet's, then a burst's
// in its pipe), giving back the buffer and the pipe.
func (l *link) letGo(d *dir) []byte {
	io := &d.io
	var held []byte
	if io.buf != nil {
		held = append(held, (*io.buf)[io.off:io.end]...)
		l.r.putBuf(io.buf)
		io.buf = nil
	}
	if io.pipe != nil {
		held = io.pipe.readAll(held)
		l.dropPipe(d)
	}
	if io.state == dirHeld || io.state == dirHeldDraining {
		l.r.waiting.Add(-1)
	}
	io.state = dirEnded
	l.r.parked.Add(-1)
	return held
}

// readAll appends what the pipe holds to b. A pipe that gives fewer bytes than it
// holds keeps the rest and the pool closes it (it is never reused with bytes in it).
func (pp *pipe) readAll(b []byte) []byte {
	for pp.buffered > 0 {
		b = append(b, make([]byte, pp.buffered)...)
		tail := b[len(b)-pp.buffered:]
		n, errno := rawIO(syscall.SYS_READ, pp.r, tail)
		if errno == syscall.EINTR {
			b = b[:len(b)-len(tail)]
			continue
		}
		b = b[:len(b)-len(tail)+n]
		if errno != 0 || n == 0 {
			return b
		}
		pp.buffered -= n
	}
	return b
}

// hold makes pending the bytes the direction writes first (an adopted session's).
// They are the direction's own, not a pooled buffer (putBuf tells them apart).
func (io *dirLoop) hold(pending []byte) {
	if len(pending) == 0 {
		return
	}
	b := append([]byte(nil), pending...)
	io.buf, io.off, io.end = &b, 0, int32(len(b))
}

// putBuf gives a packet buffer back to the pool; an adopted session's pending bytes
// (any other size) are left to the collector.
func (r *Relay) putBuf(b *[]byte) {
	if len(*b) == smallRead {
		r.bufs.Put(b)
	}
}
