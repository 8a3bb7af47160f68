package lite

import "sync"

// handshakeBufSize fits every handshake real clients send (a vanilla one is under 300
// bytes) with the Login Start or Status Request that often shares its segment. Forge
// and Floodgate suffixes that do not fit grow the buffer once; those are not pooled.
const handshakeBufSize = 512

// handshakeBufs recycles the buffers the first bytes of a connection are read into, so
// accepting a connection costs no buffer allocation. A buffer goes back as soon as its
// bytes were replayed to the backend: an idle session keeps none. Each instance has its
// own (Lite.hsBufs), as instances share nothing; the zero value is ready to use.
type handshakeBufs struct{ pool sync.Pool }

// get returns an empty buffer with handshakeBufSize capacity.
func (p *handshakeBufs) get() []byte {
	if b, ok := p.pool.Get().(*[handshakeBufSize]byte); ok {
		return b[:0]
	}
	return new([handshakeBufSize]byte)[:0]
}

// put takes back a buffer get returned (one that grew past it is left to the GC).
func (p *handshakeBufs) put(b []byte) {
	if cap(b) == handshakeBufSize {
		p.pool.Put((*[handshakeBufSize]byte)(b[:handshakeBufSize]))
	}
}

// releaseBuf gives the session's read buffer back and reports how many bytes it held.
// Nothing may use s.buf, s.raw or s.extra() afterwards.
func (s *session) releaseBuf() int {
	n := len(s.buf)
	s.l.hsBufs.put(s.buf)
	s.buf, s.raw = nil, nil
	return n
}
