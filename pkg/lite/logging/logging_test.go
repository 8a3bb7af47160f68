package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/mctest"
)

func newTestLogger(t *testing.T, o Options) (logr.Logger, *bytes.Buffer, *mctest.Clock) {
	t.Helper()
	c := mctest.NewClock(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))
	o.Now = c.Now
	o.Format = FormatJSON
	var buf bytes.Buffer
	log, err := New(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	return log, &buf, c
}

// lines decodes the JSON lines written so far.
func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

var errRefused = errors.New("connect: connection refused")

// dialFailed is one call site that logs the same error for many clients.
func dialFailed(log logr.Logger, client string) {
	log.Error(errRefused, "dial failed", "client", client)
}

func otherSite(log logr.Logger) {
	log.Error(errRefused, "dial failed", "client", "x")
}

// dialFailedFor logs one dialFailed line per client.
func dialFailedFor(log logr.Logger, clients ...string) {
	for _, cl := range clients {
		dialFailed(log, cl)
	}
}

// interleave calls a then b, four times: each alone is over the burst.
func interleave(a, b func()) {
	for range 4 {
		a()
		b()
	}
}

// rateLimitCases are runs of log calls and, per written line, the client and
// the suppressed count (none when 0).
var rateLimitCases = []struct {
	name string
	run  func(log logr.Logger, c *mctest.Clock)
	want []string
}{
	{
		name: "a burst of identical errors passes, the rest are dropped",
		run: func(log logr.Logger, c *mctest.Clock) {
			dialFailedFor(log, "a", "b", "c", "d", "e")
		},
		want: []string{"a", "b", "c"},
	},
	{
		name: "the first error after a quiet window reports what was dropped",
		run: func(log logr.Logger, c *mctest.Clock) {
			dialFailedFor(log, "a", "b", "c", "d", "e")
			c.Advance(time.Minute)
			dialFailedFor(log, "f", "g")
		},
		want: []string{"a", "b", "c", "f suppressed=2", "g"},
	},
	{
		name: "different error texts are limited separately",
		run: func(log logr.Logger, c *mctest.Clock) {
			interleave(func() { dialFailed(log, "a") },
				func() { log.Error(errors.New("timeout"), "dial failed", "client", "t") })
		},
		want: []string{"a", "t", "a", "t", "a", "t"},
	},
	{
		name: "different call sites are limited separately",
		run: func(log logr.Logger, c *mctest.Clock) {
			interleave(func() { dialFailed(log, "a") }, func() { otherSite(log) })
		},
		want: []string{"a", "x", "a", "x", "a", "x"},
	},
	{
		name: "different logger names are limited separately",
		run: func(log logr.Logger, c *mctest.Clock) {
			interleave(func() { dialFailed(log.WithName("one"), "a") }, func() { dialFailed(log.WithName("two"), "b") })
		},
		want: []string{"a", "b", "a", "b", "a", "b"},
	},
	{
		name: "info lines are never limited",
		run: func(log logr.Logger, c *mctest.Clock) {
			for _, cl := range []string{"a", "b", "c", "d", "e"} {
				log.Info("session ended", "client", cl)
			}
		},
		want: []string{"a", "b", "c", "d", "e"},
	},
	{
		name: "a window that is still open keeps dropping",
		run: func(log logr.Logger, c *mctest.Clock) {
			dialFailedFor(log, "a", "b", "c", "d")
			c.Advance(59 * time.Second)
			dialFailed(log, "e")
		},
		want: []string{"a", "b", "c"},
	},
}

func TestRateLimit(t *testing.T) {
	for _, tt := range rateLimitCases {
		t.Run(tt.name, func(t *testing.T) {
			log, buf, c := newTestLogger(t, Options{})
			tt.run(log, c)
			var got []string
			for _, l := range lines(t, buf) {
				s, _ := l["client"].(string)
				if n, ok := l["suppressed"].(float64); ok {
					s += fmt.Sprintf(" suppressed=%d", int(n))
				}
				got = append(got, s)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got lines %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRateLimitBoundedKeys(t *testing.T) {
	log, buf, _ := newTestLogger(t, Options{MaxKeys: 2, Burst: 1})
	// Three distinct errors fill the table past its bound; the third is untracked,
	// so it is never dropped, however often it repeats.
	for i := 0; i < 3; i++ {
		log.Error(errors.New("one"), "e")
		log.Error(errors.New("two"), "e")
		log.Error(errors.New("three"), "e")
	}
	var got []string
	for _, l := range lines(t, buf) {
		got = append(got, l["err"].(string))
	}
	want := "one,two,three,three,three"
	if strings.Join(got, ",") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

func TestRateLimitOff(t *testing.T) {
	log, buf, _ := newTestLogger(t, Options{Window: -1})
	dialFailedFor(log, "a", "b", "c", "d", "e")
	if n := len(lines(t, buf)); n != 5 {
		t.Fatalf("%d lines, want 5", n)
	}
}

func TestLevelChangesAtRunTime(t *testing.T) {
	var lv slog.LevelVar
	log, buf, _ := newTestLogger(t, Options{Level: &lv})
	log.V(1).Info("hidden")
	lv.Set(slog.LevelDebug)
	log.V(1).Info("shown")
	got := lines(t, buf)
	if len(got) != 1 || got[0]["msg"] != "shown" {
		t.Fatalf("got %v, want only the line logged after --debug", got)
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		name   string
		format string
		want   string
	}{
		{"text", "text", `level=INFO msg="session ended" client=1.2.3.4:5`},
		{"json", "json", `"level":"INFO","msg":"session ended","client":"1.2.3.4:5"}`},
		{"empty means text", "", `level=INFO msg="session ended" client=1.2.3.4:5`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log, err := New(&buf, Options{Format: Format(tt.format)})
			if err != nil {
				t.Fatal(err)
			}
			log.Info("session ended", "client", "1.2.3.4:5")
			if !strings.Contains(buf.String(), tt.want) {
				t.Fatalf("got %q, want it to contain %q", buf.String(), tt.want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in, err string
	}{
		{"text", ""},
		{"json", ""},
		{"yaml", `log format: unknown "yaml" (want text or json)`},
		{"JSON", `log format: unknown "JSON" (want text or json)`},
	}
	for _, tt := range tests {
		_, err := ParseFormat(tt.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("ParseFormat(%q) = %q, want %q", tt.in, got, tt.err)
		}
	}
	if _, err := New(io.Discard, Options{Format: "xml"}); err == nil {
		t.Fatal("New accepted an unknown format")
	}
}

// benchLogger is the default logger writing nowhere.
func benchLogger(b *testing.B) logr.Logger {
	b.Helper()
	log, err := New(io.Discard, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	return log
}

func BenchmarkRepeatedError(b *testing.B) {
	log := benchLogger(b)
	for b.Loop() {
		dialFailed(log, "a")
	}
}

func BenchmarkInfo(b *testing.B) {
	log := benchLogger(b)
	for b.Loop() {
		log.Info("session ended", "client", "a")
	}
}
