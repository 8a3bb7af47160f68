package admission

import "net/netip"

// Block sizes of the rate buckets. An IPv4 /24 is what one household, office or small
// hosting customer gets (Gate cuts the last byte the same way); an IPv6 /64 is one
// subnet, the smallest unit a host is normally given, so keying on the full IPv6
// address would let every host mint 2^64 identities.
const (
	v4BlockBits = 24
	v6BlockBits = 64
)

// blockKey is the rate-bucket key of addr: its /24 or /64.
func blockKey(addr netip.Addr) netip.Prefix {
	addr = addr.Unmap()
	bits := v6BlockBits
	if addr.Is4() {
		bits = v4BlockBits
	}
	p, _ := addr.Prefix(bits)
	return p
}

// hostKey is the open-connection key of addr: the IPv4 address itself, or the IPv6
// /64 (one host's subnet).
func hostKey(addr netip.Addr) netip.Prefix {
	addr = addr.Unmap()
	bits := v6BlockBits
	if addr.Is4() {
		bits = 32
	}
	p, _ := addr.Prefix(bits)
	return p
}
