package route

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// referenceRegexp translates a pattern into the regular expression whose
// leftmost-greedy submatches define the expected captures.
func referenceRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString(`(.*)`)
		case '?':
			b.WriteString(`(.)`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// referenceMatch is the slow, obviously correct matcher for one pattern.
func referenceMatch(pattern, host string, templated bool) ([]string, bool) {
	sub := referenceRegexp(strings.ToLower(pattern)).FindStringSubmatch(strings.ToLower(host))
	if sub == nil {
		return nil, false
	}
	caps := sub[1:]
	if templated {
		for _, c := range caps {
			if !clean(c) {
				return nil, false
			}
		}
	}
	return caps, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// checkAgainstReference compiles a one-route table and compares it with the
// regexp reference.
func checkAgainstReference(t *testing.T, pattern, host, backend string) {
	t.Helper()
	table, err := Compile([]Spec{{Hosts: []string{pattern}, Backends: []string{backend}}})
	if err != nil {
		t.Fatalf("Compile(%q): %v", pattern, err)
	}
	got, ok := table.Match(host)
	caps, wantOK := referenceMatch(pattern, host, hasParam(backend))
	if ok != wantOK {
		t.Fatalf("pattern %q host %q backend %q: ok = %v, reference %v", pattern, host, backend, ok, wantOK)
	}
	if !ok {
		return
	}
	want := []string{Expand(backend, caps)}
	if !slices.Equal(got.Backends, want) {
		t.Fatalf("pattern %q host %q backend %q: backends %q, reference %q (captures %q)",
			pattern, host, backend, got.Backends, want, caps)
	}
}

// Seeded random patterns and hosts over a small alphabet hit the corner cases
// (adjacent stars, '?' next to stars, repeated literals) far more often than
// hand-written cases.
func TestMatchAgreesWithRegexpReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(20240601, 7))
	draw := func(alphabet string, maxLen int) string {
		b := make([]byte, rng.IntN(maxLen+1))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		pattern := draw("ab.*?-", 7)
		if pattern == "" {
			continue
		}
		host := draw("ab.-:", 9)
		backend := draw("x$12", 5)
		checkAgainstReference(t, pattern, host, backend)
	}
}
