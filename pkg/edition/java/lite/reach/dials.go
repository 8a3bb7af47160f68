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
	n atomic.Int64 // entries, so the check with no dials at all is one atomic load
	m sync.Map     // netip.AddrPort (local address) -> *atomic.Bool (looped back)
}

// Add records c, a backend connection just dialled. Remove must follow when it closes.
func (d *Dials) Add(c net.Conn) {
	ap, ok := addrPort(c.LocalAddr())
	if !ok {
		return
	}
	if _, dup := d.m.LoadOrStore(ap, new(atomic.Bool)); !dup {
		d.n.Add(1)
	}
}

// Remove forgets c (before or after it is closed).
func (d *Dials) Remove(c net.Conn) {
	ap, ok := addrPort(c.LocalAddr())
	if !ok {
		return
	}
	if _, ok := d.m.LoadAndDelete(ap); ok {
		d.n.Add(-1)
	}
}

// Refuse reports whether peer, the remote address of an accepted connection, is the
// local end of one of the proxy's own backend connections; if so that dial is marked
// as looped (see Looped).
func (d *Dials) Refuse(peer net.Addr) bool {
	if d.n.Load() == 0 {
		return false
	}
	looped := d.get(peer)
	if looped == nil {
		return false
	}
	looped.Store(true)
	return true
}

// Looped reports whether the backend connection c reached the proxy itself and was
// refused there.
func (d *Dials) Looped(c net.Conn) bool {
	looped := d.get(c.LocalAddr())
	return looped != nil && looped.Load()
}

// Len is the number of live backend connections recorded.
func (d *Dials) Len() int { return int(d.n.Load()) }

func (d *Dials) get(a net.Addr) *atomic.Bool {
	ap, ok := addrPort(a)
	if !ok {
		return nil
	}
	v, ok := d.m.Load(ap)
	if !ok {
		return nil
	}
	return v.(*atomic.Bool)
}

func addrPort(a net.Addr) (netip.AddrPort, bool) {
	t, ok := a.(*net.TCPAddr)
	if !ok || t == nil {
		return netip.AddrPort{}, false
	}
	ap := t.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}
