package reach

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// LocalAddrsTTL is how long a read of the host's interface addresses is trusted:
// addresses come and go (DHCP, a VPN, a container's network), and reading them is
// a netlink round trip, so it is done at most this often, not per dial.
const LocalAddrsTTL = 5 * time.Second

// LocalAddrs is the set of the host's interface addresses, re-read when older than
// LocalAddrsTTL. A check never waits for a read another check started: it uses the
// previous set meanwhile.
type LocalAddrs struct {
	read    func() ([]net.Addr, error)
	set     atomic.Pointer[localSet]
	reading sync.Mutex // held by the one check that re-reads
}

type localSet struct {
	at    time.Time
	addrs map[netip.Addr]struct{}
}

// NewLocalAddrs returns the host's addresses as read reports them (nil:
// net.InterfaceAddrs).
func NewLocalAddrs(read func() ([]net.Addr, error)) *LocalAddrs {
	if read == nil {
		read = net.InterfaceAddrs
	}
	return &LocalAddrs{read: read}
}

// Has reports whether ip is one of the host's interface addresses.
func (l *LocalAddrs) Has(ip netip.Addr) bool {
	s := l.current()
	_, ok := s.addrs[ip.Unmap()]
	return ok
}

func (l *LocalAddrs) current() *localSet {
	s := l.set.Load()
	if s != nil && time.Since(s.at) < LocalAddrsTTL {
		return s
	}
	if s != nil && !l.reading.TryLock() {
		return s // another check is reading; the previous set is a few seconds old
	}
	if s == nil {
		l.reading.Lock() // the first check has no set to fall back on
	}
	defer l.reading.Unlock()
	if n := l.set.Load(); n != s {
		return n // read while this check waited
	}
	n := &localSet{at: time.Now(), addrs: make(map[netip.Addr]struct{})}
	addrs, err := l.read()
	if err != nil && s != nil {
		n.addrs = s.addrs // keep what was known rather than forget every address
	}
	for _, a := range addrs {
		var ip net.IP
		switch v := a.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if p, ok := netip.AddrFromSlice(ip); ok {
			n.addrs[p.Unmap()] = struct{}{}
		}
	}
	l.set.Store(n)
	return n
}
