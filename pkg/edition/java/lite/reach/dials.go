package reach

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// Dials is the set of the proxy's live backend connections, by local address. An
// accepted connection whose peer address is the local end of one of them comes from
// the proxy itself: a backend address led back into the proxy. It is safe for
// concurrent use; its size is the number of live backend connections.
//
// A local address alone does not identify a connection: the kernel gives the same
// local port to connections to different destinations, so a local client of the
// proxy may share it with a backend dial. A connection is taken for a loop when
// its peer is a dial's local end and it arrived where that dial went, or when that
// dial went to an address that is not the host's own (through NAT it may arrive at
// any of the proxy's addresses, so it cannot be told apart there).
type Dials struct {
	// Logins catches the loops no address shows, by the bytes of the logins being
	// dialled.
	*Logins
	local *LocalAddrs
	n     atomic.Int64 // entries, so the check with no dials at all is one atomic load
	m     sync.Map     // netip.AddrPort (local address) -> *dial
}

type dial struct {
	remote netip.AddrPort
	looped atomic.Bool
}

// NewDials returns an empty set that knows the host's addresses from local.
func NewDials(local *LocalAddrs) *Dials { return &Dials{local: local, Logins: NewLogins()} }

// Add records c, a backend connection just dialled. Remove must follow when it closes.
func (d *Dials) Add(c net.Conn) {
	ap, ok := AddrPort(c.LocalAddr())
	if !ok {
		return
	}
	remote, _ := AddrPort(c.RemoteAddr())
	if _, dup := d.m.LoadOrStore(ap, &dial{remote: remote}); !dup {
		d.n.Add(1)
	}
}

// Remove forgets c (before or after it is closed).
func (d *Dials) Remove(c net.Conn) {
	ap, ok := AddrPort(c.LocalAddr())
	if !ok {
		return
	}
	if _, ok := d.m.LoadAndDelete(ap); ok {
		d.n.Add(-1)
	}
}

// Refuse reports whether the accepted connection c comes from one of the proxy's own
// backend connections (see Dials); if so that dial is marked as looped (see Looped).
func (d *Dials) Refuse(c net.Conn) bool {
	if d.n.Load() == 0 {
		return false
	}
	b := d.get(c.RemoteAddr())
	if b == nil {
		return false
	}
	if arrived, ok := AddrPort(c.LocalAddr()); !ok || b.remote != arrived {
		ip := b.remote.Addr()
		if ip.IsLoopback() || ip.IsUnspecified() || d.local.Has(ip) {
			return false // that dial went to another socket of this host
		}
	}
	b.looped.Store(true)
	return true
}

// Looped reports whether the backend connection c reached the proxy itself and was
// refused there.
func (d *Dials) Looped(c net.Conn) bool {
	b := d.get(c.LocalAddr())
	return b != nil && b.looped.Load()
}

// Len is the number of live backend connections recorded.
func (d *Dials) Len() int { return int(d.n.Load()) }

func (d *Dials) get(a net.Addr) *dial {
	ap, ok := AddrPort(a)
	if !ok {
		return nil
	}
	v, ok := d.m.Load(ap)
	if !ok {
		return nil
	}
	return v.(*dial)
}

// AddrPort is a connection address as the proxy compares addresses: IPv4-mapped
// addresses unmapped; ok is false for an address that is not IP and port.
func AddrPort(a net.Addr) (ap netip.AddrPort, ok bool) {
	switch t := a.(type) {
	case *net.TCPAddr:
		if t == nil {
			return netip.AddrPort{}, false
		}
		ap = t.AddrPort()
	case nil:
		return netip.AddrPort{}, false
	default:
		var err error
		if ap, err = netip.ParseAddrPort(a.String()); err != nil {
			return netip.AddrPort{}, false
		}
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}
