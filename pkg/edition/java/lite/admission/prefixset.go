package admission

import (
	"net/netip"
	"slices"
)

// prefixSet answers "is this address inside any of these prefixes" with one map
// lookup per distinct prefix length, so a deny list of thousands of CIDRs costs no
// more per connection than a handful of lengths.
type prefixSet struct {
	v4Bits, v6Bits []int // distinct lengths in use, longest first
	set            map[netip.Prefix]struct{}
}

func newPrefixSet(prefixes []netip.Prefix) prefixSet {
	s := prefixSet{set: make(map[netip.Prefix]struct{}, len(prefixes))}
	for _, p := range prefixes {
		if !p.IsValid() {
			continue
		}
		addr := p.Addr().Unmap()
		bits := p.Bits()
		if p.Addr().Is4In6() {
			// ::ffff:10.0.0.0/104 is 10.0.0.0/8: compare it as the IPv4 prefix.
			bits = max(0, bits-96)
		}
		p = netip.PrefixFrom(addr, bits).Masked()
		s.set[p] = struct{}{}
		if addr.Is4() {
			s.v4Bits = appendUnique(s.v4Bits, bits)
		} else {
			s.v6Bits = appendUnique(s.v6Bits, bits)
		}
	}
	slices.SortFunc(s.v4Bits, func(a, b int) int { return b - a })
	slices.SortFunc(s.v6Bits, func(a, b int) int { return b - a })
	return s
}

func appendUnique(s []int, v int) []int {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// empty reports a set with no prefixes.
func (s prefixSet) empty() bool { return len(s.set) == 0 }

// contains reports whether addr is inside any prefix of the set.
func (s prefixSet) contains(addr netip.Addr) bool {
	if len(s.set) == 0 || !addr.IsValid() {
		return false
	}
	addr = addr.Unmap()
	lens := s.v6Bits
	if addr.Is4() {
		lens = s.v4Bits
	}
	for _, bits := range lens {
		p, err := addr.Prefix(bits)
		if err != nil {
			continue
		}
		if _, ok := s.set[p]; ok {
			return true
		}
	}
	return false
}
