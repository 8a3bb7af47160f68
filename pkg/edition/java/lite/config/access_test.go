package config

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

// withQuota puts a quota section (its lines indented under `quota:`) into minimal.
func withQuota(lines string) string {
	return "config:\n  quota:\n" + lines + minimal[len("config:\n"):]
}

func TestAdmissionDefaults(t *testing.T) {
	cfg, warns, err := parse(t, minimal)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %q", err, warningStrings(warns))
	}
	q := cfg.Quota
	if q.MaxConnections != 10000 || q.MaxConnectionsPerAddr != 32 || q.FirstByteTimeout != 5*time.Second || q.Allow != nil || q.Deny != nil {
		t.Fatalf("admission defaults: %+v", q)
	}
}

func TestAccessLists(t *testing.T) {
	tests := []struct {
		name        string
		lines       string
		allow, deny []string
	}{
		{"both lists", "    allow: [203.0.113.0/24, '2001:db8::/32']\n    deny: 203.0.113.66\n",
			[]string{"203.0.113.0/24", "2001:db8::/32"}, []string{"203.0.113.66/32"}},
		{"deny only", "    deny: [198.51.100.0/24]\n", nil, []string{"198.51.100.0/24"}},
		{"prefix with host bits is masked", "    deny: [198.51.100.77/24]\n", nil, []string{"198.51.100.0/24"}},
		{"empty lists are the default", "    allow: []\n    deny: []\n", nil, nil},
		{"null lists are the default", "    allow:\n    deny: ~\n", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, warns, err := parse(t, withQuota(tc.lines))
			if err != nil || len(warns) != 0 {
				t.Fatalf("Parse: %v %q", err, warningStrings(warns))
			}
			// An absent or empty list must be nil, so the config equals the default.
			q := cfg.Quota
			if (tc.allow == nil) != (q.Allow == nil) || (tc.deny == nil) != (q.Deny == nil) ||
				!slices.Equal(q.Allow, prefixesOf(t, tc.allow)) || !slices.Equal(q.Deny, prefixesOf(t, tc.deny)) {
				t.Fatalf("allow = %v, deny = %v", q.Allow, q.Deny)
			}
		})
	}
}

func prefixesOf(t *testing.T, ss []string) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, s := range ss {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}

func TestAdmissionKeyErrors(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		want  []string
	}{
		{"bad CIDRs are all reported", "    allow: [10.0.0.0/33, 10.0.0.0/8]\n    deny: [nope]\n", []string{
			`config.yml:3: config.quota.allow[0]: invalid CIDR "10.0.0.0/33" (want an IP address or a prefix like 203.0.113.0/24)`,
			`config.yml:4: config.quota.deny[0]: invalid CIDR "nope" (want an IP address or a prefix like 203.0.113.0/24)`,
		}},
		{"negative cap", "    maxConnections: -1\n", []string{
			`config.yml:3: config.quota.maxConnections: must be at least 0, got -1`,
		}},
		{"zero first-byte timeout", "    firstByteTimeout: 0\n", []string{
			`config.yml:3: config.quota.firstByteTimeout: must be greater than 0, got 0s`,
		}},
		{"misspelled key", "    maxConnectionPerIP: 3\n", []string{
			`config.yml:3: config.quota.maxConnectionPerIP: unknown key "maxConnectionPerIP" (did you mean "maxConnectionsPerIP"?)`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parse(t, withQuota(tc.lines))
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("want an ErrorList, got %v", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestAdmissionCapsAndWarnings(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		perIP     int
		total     int
		firstByte time.Duration
		warn      []string
	}{
		{"caps off", withQuota("    maxConnections: 0\n    maxConnectionsPerIP: 0\n"), 0, 0, 5 * time.Second, nil},
		{"per-IP above the global cap",
			withQuota("    maxConnections: 100\n    maxConnectionsPerIP: 200\n"), 200, 100, 5 * time.Second,
			[]string{`config.yml:4: config.quota.maxConnectionsPerIP: 200 is more than maxConnections (100): one address can fill the proxy`}},
		{"first byte after the handshake deadline",
			"config:\n  readTimeout: 2s\n  quota:\n    firstByteTimeout: 3s\n" + minimal[len("config:\n"):], 32, 10000, 3 * time.Second,
			[]string{`config.yml:4: config.quota.firstByteTimeout: 3s has no effect: readTimeout (2s) ends the whole handshake first`}},
		{"first byte in milliseconds", withQuota("    firstByteTimeout: 1500\n"), 32, 10000, 1500 * time.Millisecond, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := wantWarnings(t, tc.src, tc.warn)
			if q := cfg.Quota; q.MaxConnectionsPerAddr != tc.perIP || q.MaxConnections != tc.total || q.FirstByteTimeout != tc.firstByte {
				t.Fatalf("quota = %+v", q)
			}
		})
	}
}
