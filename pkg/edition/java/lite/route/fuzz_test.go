package route

import (
	"strings"
	"testing"
)

// fitsTemplate reports whether s is the template's own text with every `$n`
// of n in 1..ncap replaced by a run of capture bytes (other references stay
// as written): the only strings Expand may produce from ncap clean captures.
// It runs a small position-set automaton over s.
func fitsTemplate(template, s string, ncap int) bool {
	cur := make([]bool, len(s)+1)
	cur[0] = true
	for i := 0; i < len(template); i++ {
		next := make([]bool, len(s)+1)
		if n, end := param(template, i+1); template[i] == '$' && end > i+1 && n >= 1 && n <= ncap {
			for j := 0; j <= len(s); j++ {
				next[j] = cur[j] || j > 0 && next[j-1] && cleanByte(s[j-1])
			}
			i = end - 1
		} else {
			for j := 0; j < len(s); j++ {
				next[j+1] = cur[j] && s[j] == template[i]
			}
		}
		cur = next
	}
	return cur[len(s)]
}

func FuzzMatch(f *testing.F) {
	f.Add("*.example.com", "abc.example.com", "$1.servers.svc:25565")
	f.Add("*.*.example.com", "lobby.eu.example.com", "$2.$1.svc:25565")
	f.Add("mc?.example.com", "mc1.example.com", "mc$1:25565")
	f.Add("*", "a:b/c@d e", "fallback:25565")
	f.Add("*", "a:b/c@d e", "$1:25565")
	f.Add("**", "abc", "$1$2$3")
	f.Add("*a*a*a*b", strings.Repeat("a", 200), "$4")
	f.Fuzz(func(t *testing.T, pattern, host, backend string) {
		table, err := Compile([]Spec{{Hosts: []string{pattern}, Backends: []string{backend}}})
		if err != nil {
			t.Fatalf("Compile(%q): %v", pattern, err)
		}
		m, ok := table.Match(host)
		if ok && hasParam(backend) && !fitsTemplate(backend, m.Backends[0], Wildcards(pattern)) {
			t.Fatalf("pattern %q host %q: backend %q escapes template %q", pattern, host, m.Backends[0], backend)
		}
		if isASCII(pattern) && isASCII(host) && len(pattern) <= 64 {
			checkAgainstReference(t, pattern, host, backend)
		}
	})
}

func FuzzExpand(f *testing.F) {
	f.Add("$1.servers.svc:25565", "abc", "def")
	f.Add("$2-$1-$10-$0-$", "a", "")
	f.Add("plain:25565", "x", "y")
	f.Add("$99999999999999999999", "x", "y")
	f.Fuzz(func(t *testing.T, backend, c1, c2 string) {
		got := Expand(backend, []string{c1, c2})
		if len(got) != expandedLen(backend, []string{c1, c2}) {
			t.Fatalf("Expand(%q) length %d, computed %d", backend, len(got), expandedLen(backend, []string{c1, c2}))
		}
		if clean(c1) && clean(c2) && !fitsTemplate(backend, got, 2) {
			t.Fatalf("Expand(%q, %q, %q) = %q escapes the template", backend, c1, c2, got)
		}
		if MaxParam(backend) == 0 && got != backend {
			t.Fatalf("Expand(%q) without references changed it to %q", backend, got)
		}
	})
}
