package config

import "net/netip"

// Access is `config.quota.allow` and `config.quota.deny`: who may connect at
// all. Both match the player's address (from a trusted PROXY header when there
// is one); a connection whose player is unknown (a trusted proxy without a
// header) is not matched against either.
type Access struct {
	// Allow, when not empty, admits only addresses inside one of its
	// prefixes. Default: empty (everyone).
	Allow []netip.Prefix
	// Deny refuses addresses inside any of its prefixes, even when Allow
	// lists them. Default: empty.
	Deny []netip.Prefix
}

// decodeAccess decodes the two lists; nil when both are absent or empty, so
// that a config listing `allow: []` equals the default.
func (d *decoder) decodeAccess(allow, deny *entry) *Access {
	var a Access
	if allow != nil {
		a.Allow = d.prefixList(*allow)
	}
	if deny != nil {
		a.Deny = d.prefixList(*deny)
	}
	if len(a.Allow) == 0 && len(a.Deny) == 0 {
		return nil
	}
	return &a
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
		p, err := parsePrefix(it.s)
		if err != nil {
			d.errorf(it.line, it.path, ErrInvalid,
				"invalid CIDR %q (want an IP address or a prefix like 203.0.113.0/24)", truncate(it.s))
			continue
		}
		out = append(out, p)
	}
	return out
}
