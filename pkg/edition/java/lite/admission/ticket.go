package admission

import (
	"net/netip"
	"sync"
)

// Ticket is one admitted connection's place in the open-connection counts. The zero
// Ticket holds nothing. It is owned by one connection and not safe for concurrent use.
//
// A joined player keeps its Ticket for as long as it stays, so it holds the address
// once and derives its keys (blockKey, hostKey: pure functions of the address) when
// it needs them.
type Ticket struct {
	c    *Controller
	addr netip.Addr
	// perAddr is set while the connection holds a place in the per-address counts.
	perAddr bool
	// owes is set while the connection is to pay a connections-quota token on
	// Release (addr's block, see Exempt).
	owes bool
}

// Exempt spares the connection the connections-quota token it pays on Release: it
// turned out to be a status ping or a login, which the status and logins quotas
// charge instead. So a player's pings never use up the budget their join needs,
// while connections that never send a usable handshake (garbage, silence, unknown
// hosts) pay, and once a block has paid its burst, Admit refuses it at accept. Safe
// on the zero Ticket and more than once.
func (t *Ticket) Exempt() { t.owes = false }

// Release gives the place back. It is safe to call on the zero Ticket and more than
// once: only the first call counts.
func (t *Ticket) Release() {
	if t.c == nil {
		return
	}
	if t.owes {
		if p := t.c.pol.Load(); p.connections != nil {
			p.connections.allow(blockKey(t.addr), t.c.now())
		}
	}
	if t.perAddr {
		t.c.perAddr.release(hostKey(t.addr))
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
