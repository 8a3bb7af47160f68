package reach

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// Dials is the set of the local addresses of the proxy's live backend connections.
// An accepted connection whose peer address is in it comes from the proxy itself: a
// backend address led back into the proxy. The zero value is ready to use; it is
// safe for concurrent use. Its size is the number of live backend connections.
type Dials struct {
	n  atomic.Int64 // entries, so the common check (no dials at all) takes no lock
	mu sync.RWMutex
	m  map[netip.AddrPort]*atomic.Bool // local address -> looped back
}

// Add records c, a backend connection just dialled. Remove must follow when it closes.
func (d *Dials) Add(c net.Conn) {
	ap, ok := addrPort(c.LocalAddr())
	if !ok {
		return
	}
	d.mu.Lock()
	if d.m == nil {
		d.m = make(map[netip.AddrPort]*atomic.Bool)
	}
	if _, dup := d.m[ap]; !dup {
		d.m[ap] = new(atomic.Bool)
		d.n.Add(1)
	}
	d.mu.Unlock()
}

// Remove forgets c (before or after it is closed).
func (d *Dials) Remove(c net.Conn) {
	ap, ok := addrPort(c.LocalAddr())
	if !ok {
		return
	}
	d.mu.Lock()
	if _, ok := d.m[ap]; ok {
		delete(d.m, ap)
		d.n.Add(-1)
	}
	d.mu.Unlock()
}

// Refuse reports whether peer, the remote address of an accepted connection, is the
// local end of one of the proxy's own backend connections; if so that dial is marked
// as looped (see Looped).
func (d *Dials) Refuse(peer net.Addr) bool {
	if d.n.Load() == 0 {
		return false
	}
	ap, ok := addrPort(peer)
	if !ok {
		return false
	}
	d.mu.RLock()
	looped := d.m[ap]
	d.mu.RUnlock()
	if looped == nil {
		return false
	}
	looped.Store(true)
	return true
}

// Looped reports whether the backend connection c reached the proxy itself and was
// refused there.
func (d *Dials) Looped(c net.Conn) bool {
	ap, ok := addrPort(c.LocalAddr())
	if !ok {
		return false
	}
	d.mu.RLock()
	looped := d.m[ap]
	d.mu.RUnlock()
	return looped != nil && looped.Load()
}

// Len is the number of live backend connections recorded.
func (d *Dials) Len() int { return int(d.n.Load()) }

func addrPort(a net.Addr) (netip.AddrPort, bool) {
	t, ok := a.(*net.TCPAddr)
	if !ok || t == nil {
		return netip.AddrPort{}, false
	}
	ap := t.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}
