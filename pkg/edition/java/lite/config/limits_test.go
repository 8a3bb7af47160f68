package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// aliasList writes `[*name, *name, ...]` with n items.
func aliasList(name string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("*"+name+",", n), ",") + "]"
}

// liteWith is a config whose routes are given as YAML flow text, after
// anchors defined under `editions:` (accepted and not decoded, so the anchors
// only take effect where they are used).
func liteWith(anchors, routes string) string {
	return "editions:\n" + anchors + "config:\n  lite:\n    enabled: true\n    routes: " + routes + "\n"
}

// textBomb returns anchors t0..tN where tK is a list naming t(K-1) twice, so
// tN renders as 2^(N+1) strings.
func textBomb(n int) string {
	var b strings.Builder
	b.WriteString("  t0: &t0 [a, b]\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  t%d: &t%d [*t%d, *t%d]\n", i, i, i-1, i-1)
	}
	return b.String()
}

// parseWithin parses src, failing the test when Parse does not return within
// the deadline: a regression here is a hang, and a hung test says little.
func parseWithin(t *testing.T, src string, deadline time.Duration) (*Config, []Warning, error) {
	t.Helper()
	type result struct {
		cfg   *Config
		warns []Warning
		err   error
	}
	done := make(chan result, 1)
	go func() {
		cfg, warns, err := Parse([]byte(src), "config.yml")
		done <- result{cfg, warns, err}
	}()
	select {
	case r := <-done:
		return r.cfg, r.warns, r.err
	case <-time.After(deadline):
		t.Fatalf("Parse of %d bytes still running after %s", len(src), deadline)
		return nil, nil, nil
	}
}

// hostileInput is a file that made Parse run for seconds to minutes before
// its limits existed, with the exact findings it must now end with.
type hostileInput struct {
	name     string
	src      string
	errs     []string // every error; none when the input must load
	warns    []string
	wantKind error
}

// hostileInputs are built when the test runs, not at package init, so that
// fuzz workers do not build a megabyte of them.
func hostileInputs() []hostileInput {
	return []hostileInput{
		{
			// 30 KiB: each of 10,000 routes rendered a 16 KiB motd (about 10s).
			name: "alias bomb in a text component",
			src: liteWith(textBomb(11)+"  r: &r {host: a, backend: b, fallback: {motd: *t11}}\n",
				aliasList("r", 10000)),
			errs:     []string{`config.yml:14: config.lite.routes[20].fallback.motd: config too complex: decoding visits more than 262144 nodes (aliases and merge keys are expanded at every use)`},
			warns:    []string{`config.yml:1: editions: ignored: Gate section not supported by this Lite-only proxy`},
			wantKind: ErrLimit,
		},
		{
			// 22 KiB: 1,000 routes of 1,000 hosts each, linted pairwise (4s);
			// now routes of MaxHostsPerRoute hosts.
			name: "route and host lists aliased into half a million hosts",
			src: liteWith("  h: &h ["+hostNames(MaxHostsPerRoute)+"]\n  r: &r {host: *h, backend: b}\n",
				aliasList("r", 2000)),
			errs:     []string{`config.yml:3: config.lite.routes[992].host: config too complex: decoding visits more than 262144 nodes (aliases and merge keys are expanded at every use)`},
			warns:    []string{`config.yml:1: editions: ignored: Gate section not supported by this Lite-only proxy`},
			wantKind: ErrLimit,
		},
		{
			// 750 KiB without an alias: route.Lint compares 40,000 hosts
			// pairwise (7s). The table loads, unlinted.
			name:  "40,000 hosts linted pairwise",
			src:   "config:\n  lite:\n    enabled: true\n    routes:\n" + strings.Repeat("      - backend: b\n        host: ["+hostNames(200)+"]\n", 200),
			warns: []string{`config.yml:5: config.lite.routes: not checked for hosts that never match: 40000 host patterns in 200 routes are too many to compare pairwise`},
		},
		{
			// 140 KiB: a '?' run matched at every offset of a long literal host
			// during linting (0.7s, quadratic in the lengths).
			name: "100,000-byte host patterns",
			src: "config:\n  lite:\n    enabled: true\n    routes:\n      - {host: '*" + strings.Repeat("?", 40000) + "b*', backend: b}\n" +
				"      - {host: " + strings.Repeat("a", 100000) + ", backend: b}\n",
			errs: []string{
				`config.yml:5: config.lite.routes[0].host: invalid host pattern "*` + strings.Repeat("?", 63) + `...": longer than 255 bytes; no client sends a host that long`,
				`config.yml:6: config.lite.routes[1].host: invalid host pattern "` + strings.Repeat("a", 64) + `...": longer than 255 bytes; no client sends a host that long`,
			},
			wantKind: ErrInvalid,
		},
		{
			// 1 KiB: merge keys fanning out 4^29 times.
			name:     "merge keys fanning out",
			src:      mergeFanout(29) + "config:\n  <<: *m29\n",
			errs:     []string{`config.yml:3: config: config too complex: decoding visits more than 262144 nodes (aliases and merge keys are expanded at every use)`},
			warns:    []string{`config.yml:1: editions: ignored: Gate section not supported by this Lite-only proxy`},
			wantKind: ErrLimit,
		},
	}
}

// mergeFanout returns anchors m0..mN under `editions:` where mK merges
// m(K-1) four times.
func mergeFanout(n int) string {
	var b strings.Builder
	b.WriteString("editions:\n  m0: &m0 {enabled: true}\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  m%d: &m%d {<<: [*m%d, *m%d, *m%d, *m%d]}\n", i, i, i-1, i-1, i-1, i-1)
	}
	return b.String()
}

func hostNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("h%d.example.com", i)
	}
	return strings.Join(names, ", ")
}

func TestParseHostileInputIsBounded(t *testing.T) {
	for _, tc := range hostileInputs() {
		t.Run(tc.name, func(t *testing.T) {
			cfg, warns, err := parseWithin(t, tc.src, 30*time.Second)
			if w := strings.Join(warningStrings(warns), "\n"); w != strings.Join(tc.warns, "\n") {
				t.Errorf("warnings:\n got %q\nwant %q", w, tc.warns)
			}
			if tc.errs == nil {
				if err != nil || cfg == nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			wantErrors(t, cfg, err, tc.errs, tc.wantKind)
		})
	}
}

// 34 KiB: 2,000 routes with a 16 KiB unknown key, each looked up in the "did
// you mean" edit distance (over 20s). The list shows the first 100 errors, the
// limit the keys ran into, and how many were left out.
func TestParseHugeUnknownKeyInEveryRouteIsBounded(t *testing.T) {
	key := strings.Repeat("k", 16<<10)
	src := liteWith("  r: &r\n    host: a\n    backend: b\n    ? "+key+"\n    : 1\n", aliasList("r", 2000))
	_, _, err := parseWithin(t, src, 30*time.Second)
	var list ErrorList
	if !errors.As(err, &list) || len(list) != maxErrors+2 {
		t.Fatalf("want %d errors, got %d: %v", maxErrors+2, len(list), err)
	}
	short := strings.Repeat("k", 64) + "..."
	first := `config.yml:5: config.lite.routes[0].` + short + `: unknown key "` + short + `" (want one of "asleepMotd", "backend", `
	if got := list[0].Error(); !strings.HasPrefix(got, first) || !errors.Is(list[0], ErrUnknownKey) {
		t.Errorf("first error %q, want it to start with %q", got, first)
	}
	limit := `config.yml:10: config.lite.routes[1023]: config too complex: decoding reads more than 16 MiB of keys and values (aliases are expanded at every use)`
	if got := list[maxErrors].Error(); got != limit {
		t.Errorf("limit error %q, want %q", got, limit)
	}
	if got, want := list[maxErrors+1].Error(), "config.yml: 923 more errors not shown (the limit is 100)"; got != want {
		t.Errorf("last error %q, want %q", got, want)
	}
}

// The suggestion for an unknown key is an edit distance, quadratic in the
// lengths: a key too long to be a typo of a known one is not compared at all.
func TestSuggestSkipsKeysTooLongForATypo(t *testing.T) {
	known := []string{"strategy", "backend", "host"}
	if got := suggest("strategey", known); got != "strategy" {
		t.Fatalf("suggest(strategey) = %q, want strategy", got)
	}
	long := strings.Repeat("s", maxSuggestKey+1)
	if got := suggest(long, known); got != "" {
		t.Fatalf("suggest(%d-byte key) = %q, want none", len(long), got)
	}
	huge := strings.Repeat("k", 1<<20)
	if allocs := testing.AllocsPerRun(10, func() { suggest(huge, known) }); allocs != 0 {
		t.Fatalf("suggest on a 1 MiB key allocated %v times: it computed edit distances", allocs)
	}
}

func TestFindingsAreCapped(t *testing.T) {
	t.Run("errors", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(minimal)
		for i := range maxErrors + 50 {
			fmt.Fprintf(&b, "        unknown%d: 1\n", i)
		}
		_, _, err := Parse([]byte(b.String()), "config.yml")
		var list ErrorList
		if !errors.As(err, &list) || len(list) != maxErrors+1 {
			t.Fatalf("want %d errors, got %d", maxErrors+1, len(list))
		}
		if got, want := list[maxErrors-1].Error(), `config.yml:106: config.lite.routes[0].unknown99: unknown key "unknown99"`; !strings.HasPrefix(got, want) {
			t.Errorf("last shown error %q, want it to start with %q", got, want)
		}
		if got, want := list[maxErrors].Error(), "config.yml: 50 more errors not shown (the limit is 100)"; got != want || !errors.Is(list[maxErrors], ErrLimit) {
			t.Errorf("summary %q, want %q wrapping ErrLimit", got, want)
		}
	})
	t.Run("warnings", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("config:\n  lite:\n    enabled: true\n    routes:\n")
		for i := range maxWarnings + 50 {
			fmt.Fprintf(&b, "      - {host: h%d, backend: b, realIP: true}\n", i)
		}
		_, warns, err := Parse([]byte(b.String()), "config.yml")
		if err != nil || len(warns) != maxWarnings+1 {
			t.Fatalf("want %d warnings and no error, got %d, %v", maxWarnings+1, len(warns), err)
		}
		if got, want := warns[maxWarnings].String(), "config.yml: 50 more warnings not shown (the limit is 100)"; got != want {
			t.Errorf("summary %q, want %q", got, want)
		}
	})
}

func TestFileSizeLimit(t *testing.T) {
	const want = "config.yml: file is larger than the 4 MiB limit"
	big := []byte(minimal + "#" + strings.Repeat("x", MaxFileSize) + "\n")
	_, _, err := Parse(big, "config.yml")
	if err == nil || err.Error() != want || !errors.Is(err, ErrLimit) {
		t.Fatalf("Parse of %d bytes: %v, want %q", len(big), err, want)
	}
	if _, _, err := Parse(big[:MaxFileSize], "config.yml"); errors.Is(err, ErrLimit) {
		t.Fatalf("Parse of exactly MaxFileSize bytes: %v", err)
	}
	// An endless file is read up to the limit, not forever.
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, _, err = Load("/dev/zero")
	if err == nil || err.Error() != "/dev/zero: file is larger than the 4 MiB limit" {
		t.Fatalf("Load(/dev/zero): %v", err)
	}
}

func TestFaviconFileLimits(t *testing.T) {
	dir := t.TempDir()
	big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, maxFaviconFile)...)
	if err := os.WriteFile(filepath.Join(dir, "big.png"), big, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, favicon, want string
		kind                error
	}{
		{"file over the limit", "big.png", `favicon file ` + filepath.Join(dir, "big.png") + ` is larger than 1024 KiB`, ErrLimit},
		{"device that never ends", "/dev/zero", `favicon file /dev/zero is not a regular file`, ErrInvalid},
		{"directory", ".", `favicon file ` + dir + ` is not a regular file`, ErrInvalid},
		{"FIFO nobody writes to", "fifo", `favicon file ` + filepath.Join(dir, "fifo") + ` is not a regular file`, ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.favicon == "/dev/zero" {
				if _, err := os.Stat(tc.favicon); err != nil {
					t.Skip("no /dev/zero")
				}
			}
			if tc.favicon == "fifo" {
				if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			}
			src := minimal + "        fallback:\n          favicon: " + tc.favicon + "\n"
			_, _, err := Parse([]byte(src), filepath.Join(dir, "config.yml"))
			want := filepath.Join(dir, "config.yml") + ":8: config.lite.routes[0].fallback.favicon: " + tc.want
			if err == nil || err.Error() != want || !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want %q", err, want)
			}
		})
	}
}

func TestClipKeepsWholeRunes(t *testing.T) {
	msg := strings.Repeat("a", maxMessage-1) + "§§"
	got := clip(msg)
	if got != strings.Repeat("a", maxMessage-1)+"..." {
		t.Fatalf("clip = ...%q", got[len(got)-8:])
	}
	if short := "fine"; clip(short) != short {
		t.Fatal("clip changed a short message")
	}
}

func TestHostPatternLength(t *testing.T) {
	for _, n := range []int{maxHostPattern, maxHostPattern + 1} {
		host := strings.Repeat("a", n)
		_, _, err := Parse([]byte("config:\n  lite:\n    enabled: true\n    routes:\n      - {host: "+host+", backend: b}\n"), "config.yml")
		if (err != nil) != (n > maxHostPattern) {
			t.Fatalf("%d-byte host: %v", n, err)
		}
	}
}

// Realistic tables of a few thousand routes are still linted; only tables
// whose pairwise comparison would take long are not.
func TestLintCostLetsRealTablesBeLinted(t *testing.T) {
	var b strings.Builder
	b.WriteString("config:\n  lite:\n    enabled: true\n    routes:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "      - {host: [h%d.example.com, '*.h%d.example.com'], backend: 10.0.%d.%d}\n", i, i, i/256, i%256)
	}
	b.WriteString("      - {host: h7.example.com, backend: b}\n")
	_, warns, err := Parse([]byte(b.String()), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`config.yml:2005: config.lite.routes[2000].host: duplicate host "h7.example.com": route 7 host 0 has it already`}
	if got := warningStrings(warns); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings %q, want %q", got, want)
	}
}

// BenchmarkParseLimits measures Parse where the limits matter: the reference
// config (nothing near a limit) and the smallest alias bomb, which runs the
// node budget down to its end.
func BenchmarkParseLimits(b *testing.B) {
	ref, err := os.ReadFile(repoRoot + "config.yml")
	if err != nil {
		b.Fatal(err)
	}
	bomb := []byte(liteWith(textBomb(11)+"  r: &r {host: a, backend: b, fallback: {motd: *t11}}\n", aliasList("r", 24)))
	for _, bc := range []struct {
		name string
		src  []byte
	}{{"reference config", ref}, {"alias bomb", bomb}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = Parse(bc.src, "config.yml")
			}
		})
	}
}
