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

// Overflow block sizes: when the rate table is full, a new block shares a bucket with
// the rest of its wider network instead of with everyone. An IPv4 /16 is 256 /24s, the
// most one party usually controls; an IPv6 /48 is one site, what a customer (or a free
// tunnel account) is given, so a spray of /64s from one site stays in that site.
const (
	v4WideBits = 16
	v6WideBits = 48
)

// wideKey is the overflow key of block: its /16 or /48.
func wideKey(block netip.Prefix) netip.Prefix {
	bits := v6WideBits
	if block.Addr().Is4() {
		bits = v4WideBits
	}
	p, _ := block.Addr().Prefix(bits)
	return p
}
