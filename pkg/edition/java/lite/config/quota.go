package config

import "time"

// Quota is `config.quota`: how much one client may take from the proxy. The
// token buckets count per client IP block (IPv4 /24, IPv6 /64; Gate cuts off
// the last block of the address the same way); Gate's keys are `connections`
// and `logins`, the rest are this proxy's own. The per-address limits apply to
// the player's address: from a trusted proxy (proxyProtocolTrustedProxies)
// that sent no PROXY header the player is unknown and only maxConnections
// applies, so a tunnel or load balancer is not throttled as one player.
type Quota struct {
	// Connections limits new connections, checked at accept and paid when a
	// connection ends without a status or login handshake (those pay Status
	// or Logins instead). Default: enabled, 5/s, burst 10, 1000 entries.
	Connections QuotaSettings
	// Logins limits login attempts, checked after the handshake; a refused
	// player gets a Disconnect text. Default: enabled, 0.4/s, burst 3, 1000 entries.
	Logins QuotaSettings
	// Status limits status pings (legacy ones too), checked after the
	// handshake; a refused ping is closed. Default: enabled, 5/s, burst 10,
	// 1000 entries.
	Status QuotaSettings
	// MaxConnections caps the client connections open at once (handshakes,
	// pings and player sessions together); more are closed at accept. A
	// player session holds two sockets, so keep it under half the process's
	// open-file limit. Default 10000; 0 means no cap.
	MaxConnections int
	// MaxConnectionsPerIP caps the connections one client address (an IPv4
	// address, an IPv6 /64) holds open at once. Default 32; 0 means no cap.
	MaxConnectionsPerIP int
	// FirstByteTimeout is how long a new connection may stay silent: its
	// first byte (from a trusted proxy: its whole PROXY header) must arrive
	// within it. readTimeout still bounds the whole handshake. Default 5s; > 0.
	FirstByteTimeout time.Duration
	// Access holds the allow and deny lists (`quota.allow`, `quota.deny`);
	// nil when neither is set. Read-only once loaded.
	Access *Access
}

// QuotaSettings is one token-bucket limit.
type QuotaSettings struct {
	// Enabled turns the limit on; false means no limit at all.
	Enabled bool
	// OPS is the refill rate in operations per second; > 0 when enabled.
	OPS float64
	// Burst is the bucket size; >= 1 when enabled.
	Burst int
	// MaxEntries bounds the IP blocks tracked (oldest evicted); >= 1 when enabled.
	MaxEntries int
}

func defaultQuota() Quota {
	return Quota{
		Connections: QuotaSettings{Enabled: true, OPS: 5, Burst: 10, MaxEntries: 1000},
		Logins:      QuotaSettings{Enabled: true, OPS: 0.4, Burst: 3, MaxEntries: 1000},
		Status:      QuotaSettings{Enabled: true, OPS: 5, Burst: 10, MaxEntries: 1000},

		MaxConnections:      10000,
		MaxConnectionsPerIP: 32,
		FirstByteTimeout:    5 * time.Second,
	}
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
			d.intField(f, 0, &q.MaxConnectionsPerIP)
			at.maxConnectionsPerIP = &f
		},
		"firstByteTimeout": func(f entry) {
			d.positive(f, &q.FirstByteTimeout)
			at.firstByteTimeout = &f
		},
		"allow": func(f entry) { allow = &f },
		"deny":  func(f entry) { deny = &f },
	}, nil)
	q.Access = d.decodeAccess(allow, deny)
	if f := at.maxConnectionsPerIP; f != nil && q.MaxConnections > 0 && q.MaxConnectionsPerIP > q.MaxConnections {
		d.warnf(f.val.Line, f.path, "%d is more than maxConnections (%d): one address can fill the proxy",
			q.MaxConnectionsPerIP, q.MaxConnections)
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
			if d.number(f, &s.OPS) {
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
	if s.OPS <= 0 {
		line, path := at(ops, "ops")
		d.errorf(line, path, ErrInvalid, "must be greater than 0 when the quota is enabled, got %g", s.OPS)
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
