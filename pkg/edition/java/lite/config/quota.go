package config

import (
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
)

// Quota is `config.quota`: how much one client may take from the proxy. The
// token buckets count per client IP block (IPv4 /24, IPv6 /64; Gate cuts off
// the last block of the address the same way); Gate's keys are `connections`
// and `logins`, the rest are this proxy's own. The per-address limits apply to
// the player's address: from a trusted proxy (proxyProtocolTrustedProxies)
// that sent no PROXY header the player is unknown and only maxConnections
// applies (nor is it matched against allow or deny), so a tunnel or load
// balancer is not throttled as one player.
//
// The embedded admission.Config is the policy as admission takes it; its
// fields' docs and defaults (admission.DefaultConfig) are admission's. Keys
// whose field is named otherwise: `ops` is Limit.Rate, `maxConnectionsPerIP`
// is MaxConnectionsPerAddr, `allow` and `deny` are Allow and Deny (nil when
// empty, so that `allow: []` equals the default). Read-only once loaded.
type Quota struct {
	admission.Config
	// FirstByteTimeout is how long a new connection may stay silent: its
	// first byte (from a trusted proxy: its whole PROXY header) must arrive
	// within it. readTimeout still bounds the whole handshake. Default 5s; > 0.
	FirstByteTimeout time.Duration
}

// QuotaSettings is one token-bucket limit (`quota.connections`, `logins`,
// `status`).
type QuotaSettings = admission.Limit

func defaultQuota() Quota {
	return Quota{Config: admission.DefaultConfig(), FirstByteTimeout: 5 * time.Second}
}

// quotaKeys remembers where some quota keys were, for checks that need other
// sections too.
type quotaKeys struct {
	firstByteTimeout, maxConnectionsPerIP *entry
}

func (d *decoder) decodeQuota(e entry, q *Quota) quotaKeys {
	var at quotaKeys
	var allow, deny *entry
	d.mapping(e, map[string]handler{
		"connections":    func(f entry) { d.decodeQuotaSettings(f, &q.Connections) },
		"logins":         func(f entry) { d.decodeQuotaSettings(f, &q.Logins) },
		"status":         func(f entry) { d.decodeQuotaSettings(f, &q.Status) },
		"maxConnections": func(f entry) { d.intField(f, 0, &q.MaxConnections) },
		"maxConnectionsPerIP": func(f entry) {
			d.intField(f, 0, &q.MaxConnectionsPerAddr)
			at.maxConnectionsPerIP = &f
		},
		"firstByteTimeout": func(f entry) {
			d.positive(f, &q.FirstByteTimeout)
			at.firstByteTimeout = &f
		},
		"allow": func(f entry) { allow = &f },
		"deny":  func(f entry) { deny = &f },
	}, nil)
	q.Allow, q.Deny = d.decodeAccess(allow, deny)
	if f := at.maxConnectionsPerIP; f != nil && q.MaxConnections > 0 && q.MaxConnectionsPerAddr > q.MaxConnections {
		d.warnf(f.val.Line, f.path, "%d is more than maxConnections (%d): one address can fill the proxy",
			q.MaxConnectionsPerAddr, q.MaxConnections)
	}
	return at
}

// decodeQuotaSettings decodes over the defaults in s. As in Gate, the limits
// are only checked when the quota is enabled.
func (d *decoder) decodeQuotaSettings(e entry, s *QuotaSettings) {
	var ops, burst, maxEntries *entry
	var b, m int64
	ok := d.mapping(e, map[string]handler{
		"enabled": func(f entry) { d.boolean(f, &s.Enabled) },
		"ops": func(f entry) {
			if d.number(f, &s.Rate) {
				ops = &f
			}
		},
		"burst": func(f entry) {
			if d.integer(f, -1<<31, 1<<31-1, &b) {
				s.Burst, burst = int(b), &f
			}
		},
		"maxEntries": func(f entry) {
			if d.integer(f, -1<<31, 1<<31-1, &m) {
				s.MaxEntries, maxEntries = int(m), &f
			}
		},
	}, nil)
	if !ok || !s.Enabled {
		return
	}
	at := func(f *entry, key string) (int, string) {
		if f != nil {
			return f.val.Line, f.path
		}
		return resolve(e.val).Line, child(e.path, key)
	}
	if s.Rate <= 0 {
		line, path := at(ops, "ops")
		d.errorf(line, path, ErrInvalid, "must be greater than 0 when the quota is enabled, got %g", s.Rate)
	}
	if s.Burst < 1 {
		line, path := at(burst, "burst")
		d.errorf(line, path, ErrInvalid, "must be at least 1 when the quota is enabled, got %d", s.Burst)
	}
	if s.MaxEntries < 1 {
		line, path := at(maxEntries, "maxEntries")
		d.errorf(line, path, ErrInvalid, "must be at least 1 when the quota is enabled, got %d", s.MaxEntries)
	}
}
