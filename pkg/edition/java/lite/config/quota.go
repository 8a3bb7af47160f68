package config

// Quota rate-limits operations per client IP block (Gate cuts off the last
// block of the address). Gate's keys `connections` and `logins`; `status` is
// this proxy's own.
type Quota struct {
	// Connections limits new connections. Default: enabled, 5/s, burst 10, 1000 entries.
	Connections QuotaSettings
	// Logins limits login attempts. Default: enabled, 0.4/s, burst 3, 1000 entries.
	Logins QuotaSettings
	// Status limits status pings. Default: disabled (the connections quota
	// already bounds them); when enabled without values: 5/s, burst 10, 1000 entries.
	Status QuotaSettings
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
		Status:      QuotaSettings{Enabled: false, OPS: 5, Burst: 10, MaxEntries: 1000},
	}
}

func (d *decoder) decodeQuota(e entry, q *Quota) {
	d.mapping(e, map[string]handler{
		"connections": func(f entry) { d.decodeQuotaSettings(f, &q.Connections) },
		"logins":      func(f entry) { d.decodeQuotaSettings(f, &q.Logins) },
		"status":      func(f entry) { d.decodeQuotaSettings(f, &q.Status) },
	}, nil)
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
