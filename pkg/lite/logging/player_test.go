package logging

import (
	"bytes"
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain host", "play.example.com", "play.example.com"},
		{"forge marker is escaped", "mc.example.com\x00FML3\x00", `"mc.example.com\x00FML3\x00"`},
		{"line break cannot forge a line", "a\nlevel=ERROR msg=pwned", `"a\nlevel=ERROR msg=pwned"`},
		{"terminal escape", "\x1b[2Jx", `"\x1b[2Jx"`},
		{"quote", `a"b`, `"a\"b"`},
		{"long host is cut with its length", strings.Repeat("a", 7990), strings.Repeat("a", 64) + "...(7990 bytes)"},
		{"cut on a rune boundary", strings.Repeat("a", 63) + "é" + "z", strings.Repeat("a", 63) + "...(66 bytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Clip(c.in); got != c.want {
				t.Fatalf("Clip(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestStdLoggerGoesThroughTheLimiter: an http.Server's error lines become JSON
// records of the structured logger, and a flood of them from different peers costs
// Burst lines.
func TestStdLoggerGoesThroughTheLimiter(t *testing.T) {
	var out bytes.Buffer
	l, err := New(&out, Options{Format: FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	std := StdLogger(l, "admin HTTP server")
	for i := range 50 {
		std.Printf("http: TLS handshake error from 203.0.113.%d:5000: EOF", i)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != DefaultBurst {
		t.Fatalf("%d lines, want %d (rate limited):\n%s", len(lines), DefaultBurst, out.String())
	}
	if !strings.Contains(lines[0], `"msg":"admin HTTP server"`) || !strings.Contains(lines[0], `"detail":"http: TLS handshake error from 203.0.113.0:5000: EOF"`) {
		t.Fatalf("line %s", lines[0])
	}
}
