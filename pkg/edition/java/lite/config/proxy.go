package config

import (
	"net/netip"
	"strings"
)

// decodeProxy decodes the `config:` section: the proxy-wide keys Lite uses,
// Gate's full-proxy keys (warned about), and `lite:`.
func (d *decoder) decodeProxy(e entry, cfg *Config) {
	var (
		lite    *entry
		trusted *entry
		quota   *entry
	)
	ok := d.mapping(e, map[string]handler{
		"bind":                        func(f entry) { d.bind(f, &cfg.Bind) },
		"connectionTimeout":           func(f entry) { d.timeout(f, &cfg.ConnectionTimeout, connectionTimeoutSanity) },
		"readTimeout":                 func(f entry) { d.timeout(f, &cfg.ReadTimeout, readTimeoutSanity) },
		"debug":                       func(f entry) { d.boolean(f, &cfg.Debug) },
		"proxyProtocol":               func(f entry) { d.boolean(f, &cfg.ProxyProtocol) },
		"proxyProtocolTrustedProxies": func(f entry) { trusted = &f },
		"quota":                       func(f entry) { quota = &f },
		"lite":                        func(f entry) { lite = &f },
	}, ignoredSet(fullProxyKeys, fullProxyIgnored))
	if !ok {
		return
	}
	if trusted != nil {
		d.trustedProxies(*trusted, cfg)
	}
	if quota != nil {
		// After readTimeout, wherever the keys stand: the deadlines are checked together.
		d.checkDeadlines(cfg, d.decodeQuota(*quota, &cfg.Quota))
	}
	if lite == nil {
		d.errorf(e.key.Line, child(e.path, "lite.enabled"), ErrLiteDisabled,
			"missing: this binary only runs Lite mode; set config.lite.enabled: true")
		return
	}
	d.decodeLite(*lite, &cfg.Lite)
}

// bind decodes a listen address: host:port, the host may be empty.
func (d *decoder) bind(e entry, dst *string) {
	n, ok := d.scalar(e, "host:port")
	if !ok {
		return
	}
	s := n.Value
	if s == "" {
		d.invalid(e, "must not be empty (want host:port)")
		return
	}
	if err := validListenAddr(s); err != nil {
		d.invalid(e, "invalid address %q: %v", truncate(s), err)
		return
	}
	*dst = s
}

// trustedProxies decodes a list of IP addresses or CIDR prefixes.
func (d *decoder) trustedProxies(e entry, cfg *Config) {
	items, ok := d.stringList(e)
	if !ok || len(items) == 0 {
		return // empty means Gate's default, as in Gate
	}
	prefixes := make([]netip.Prefix, 0, len(items))
	for _, it := range items {
		p, ok := d.prefix(it, "10.0.0.0/8")
		if !ok {
			continue
		}
		if cfg.ProxyProtocol && p.Bits() == 0 {
			d.warnf(it.line, it.path, "%s trusts every peer: anyone who can connect can claim any IP address", p)
		}
		prefixes = append(prefixes, p)
	}
	cfg.ProxyProtocolTrustedProxies = prefixes
}

// prefix parses one item of a list of addresses and prefixes, reporting a bad
// one with example as the prefix form wanted.
func (d *decoder) prefix(it listItem, example string) (netip.Prefix, bool) {
	p, err := parsePrefix(it.s)
	if err != nil {
		d.errorf(it.line, it.path, ErrInvalid,
			"invalid CIDR %q (want an IP address or a prefix like %s)", truncate(it.s), example)
		return netip.Prefix{}, false
	}
	return p, true
}

// parsePrefix accepts "10.0.0.0/8" or a bare address (a single-host prefix).
func parsePrefix(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}
