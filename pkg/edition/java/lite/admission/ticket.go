package admission

import (
	"net/netip"
	"sync"
)

// Ticket is one admitted connection's place in the open-connection counts. The zero
// Ticket holds nothing. It is owned by one connection and not safe for concurrent use.
type Ticket struct {
	c       *Controller
	addr    netip.Prefix
	perAddr bool
}

// Release gives the place back. It is safe to call on the zero Ticket and more than
// once: only the first call counts.
func (t *Ticket) Release() {
	if t.c == nil {
		return
	}
	if t.perAddr {
		t.c.perAddr.release(t.addr)
	}
	t.c.open.Add(-1)
	*t = Ticket{}
}

// openCounter counts open connections per client address. An address is in the map
// only while it has connections open, so the map is bounded by the open connections
// themselves and needs no eviction.
type openCounter struct {
	mu sync.Mutex
	m  map[netip.Prefix]int32
}

func (o *openCounter) acquire(key netip.Prefix, limit int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := o.m[key]
	if int(n) >= limit {
		return false
	}
	o.m[key] = n + 1
	return true
}

func (o *openCounter) release(key netip.Prefix) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := o.m[key]; n > 1 {
		o.m[key] = n - 1
	} else {
		delete(o.m, key)
	}
}

func (o *openCounter) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.m)
}
