package operator

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func intp(n int) *int { return &n }

func TestValidateBounds(t *testing.T) {
	later := t0.Add(time.Hour)
	past := t0.Add(-time.Second)
	tooFar := t0.Add(MaxBanFor + time.Hour)
	cases := []struct {
		name   string
		e      Entry
		target string // normalized, when valid
		bad    string // a part of the error, when invalid
	}{
		{"ban by bare name is lower-cased", Entry{Kind: Ban, Target: "Griefer_1"}, "name:griefer_1", ""},
		{"ban by dashless uuid", Entry{Kind: Ban, Target: "uuid:069a79f444e94726a5befca90e38aaf5"}, "uuid:069a79f4-44e9-4726-a5be-fca90e38aaf5", ""},
		{"ban by address is a /32", Entry{Kind: Ban, Target: "203.0.113.7"}, "ip:203.0.113.7/32", ""},
		{"ban by range is masked", Entry{Kind: Ban, Target: "ip:203.0.113.77/24"}, "ip:203.0.113.0/24", ""},
		{"ban by mapped v4 range", Entry{Kind: Ban, Target: "::ffff:10.1.2.3/104"}, "ip:10.0.0.0/8", ""},
		{"ban with expiry", Entry{Kind: Ban, Target: "x", Expires: &later}, "name:x", ""},
		{"ban expired already", Entry{Kind: Ban, Target: "x", Expires: &past}, "", "expires"},
		{"ban for eleven years", Entry{Kind: Ban, Target: "x", Expires: &tooFar}, "", "expires"},
		{"ban of a name too long", Entry{Kind: Ban, Target: "name:seventeen_chars__"}, "", "name"},
		{"ban of every route", Entry{Kind: Ban, Target: "*"}, "", ""},
		{"route target lower-cased", Entry{Kind: Maintenance, Target: "Play.Example.COM."}, "play.example.com", ""},
		{"maintenance with bypass", Entry{Kind: Maintenance, Target: "*", Bypass: []string{"Admin", "069a79f4-44e9-4726-a5be-fca90e38aaf5"}}, "*", ""},
		{"bypass entry not a player", Entry{Kind: Maintenance, Target: "*", Bypass: []string{"has space in it and far too long"}}, "", "bypass[0]"},
		{"too many bypass", Entry{Kind: Maintenance, Target: "*", Bypass: make([]string, MaxBypass+1)}, "", "bypass"},
		{"text too long", Entry{Kind: Maintenance, Target: "*", Text: strings.Repeat("a", MaxText+1)}, "", "text"},
		{"control characters", Entry{Kind: Maintenance, Target: "*", Text: "a\x1b[31m"}, "", "printable"},
		{"motd on a drain", Entry{Kind: Drain, Target: "10.0.0.1:25565", MOTD: "x"}, "", "motd: not used"},
		{"drain by name and port", Entry{Kind: Drain, Target: "mc-0.mc.default.svc:25565"}, "mc-0.mc.default.svc:25565", ""},
		{"drain without port", Entry{Kind: Drain, Target: "10.0.0.1"}, "", "host:port"},
		{"override favicon not png", Entry{Kind: Override, Target: "*", Favicon: "https://example.invalid/x.png"}, "", "favicon"},
		{"override max players negative", Entry{Kind: Override, Target: "*", MaxPlayers: intp(-1)}, "", "maxPlayers"},
		{"override max players", Entry{Kind: Override, Target: "*", MaxPlayers: intp(100), Version: "Event"}, "*", ""},
		{"unknown kind", Entry{Kind: "shutdown", Target: "*"}, "", "kind"},
		{"empty target", Entry{Kind: Drain}, "", "target: empty"},
	}
	cases[9].bad = "target"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.e
			err := Validate(&e, t0)
			if c.bad != "" {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("Validate = %v, want an ErrInvalid about %q", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if e.Target != c.target {
				t.Fatalf("target = %q, want %q", e.Target, c.target)
			}
		})
	}
}

func TestKeyRoundTripsAndIsAConfigMapKey(t *testing.T) {
	for _, e := range []Entry{{Kind: Ban, Target: "ip:2001:db8::/32"}, {Kind: Maintenance, Target: "*"},
		{Kind: Drain, Target: "mc-0.mc:25565"}} {
		k := e.Key()
		for _, c := range k {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				t.Fatalf("key %q holds %q, which a ConfigMap key may not", k, c)
			}
		}
		kind, target, ok := parseKey(k)
		if !ok || kind != e.Kind || target != e.Target {
			t.Fatalf("parseKey(%q) = %q %q %v", k, kind, target, ok)
		}
	}
}
