package config

import "net/netip"

// decodeAccess decodes `quota.allow` and `quota.deny`: who may connect at
// all. Both match the player's address (from a trusted PROXY header when there
// is one); a connection whose player is unknown (a trusted proxy without a
// header) is not matched against either. A list that is absent or empty is
// nil, so that a config listing `allow: []` equals the default.
func (d *decoder) decodeAccess(allow, deny *entry) (allowed, denied []netip.Prefix) {
	if allow != nil {
		allowed = d.prefixList(*allow)
	}
	if deny != nil {
		denied = d.prefixList(*deny)
	}
	if len(allowed) == 0 {
		allowed = nil
	}
	if len(denied) == 0 {
		denied = nil
	}
	return allowed, denied
}

// prefixList decodes an IP address, a CIDR prefix, or a list of them. Every
// bad item is reported; the good ones are kept.
func (d *decoder) prefixList(e entry) []netip.Prefix {
	if isNull(resolve(e.val)) {
		return nil
	}
	items, ok := d.stringList(e)
	if !ok {
		return nil
	}
	var out []netip.Prefix
	for _, it := range items {
		if p, ok := d.prefix(it, "203.0.113.0/24"); ok {
			out = append(out, p)
		}
	}
	return out
}
