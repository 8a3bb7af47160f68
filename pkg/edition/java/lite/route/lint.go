package route

import (
	"fmt"
	"strings"
)

// Finding is one problem Lint found: a host that can never match or a backend
// template that refers to a capture its host does not have.
type Finding struct {
	Route   int    // index of the route
	Host    int    // index of the host within the route, -1 when n/a
	Backend int    // index of the backend within the route, -1 when n/a
	Msg     string // what is wrong, naming the earlier pattern where there is one
}

// String formats the finding with its indexes, for logs and tests.
func (f Finding) String() string {
	return fmt.Sprintf("route %d host %d backend %d: %s", f.Route, f.Host, f.Backend, f.Msg)
}

// Lint finds routes and hosts that can never match: a host after a catch-all
// (`*`) that already takes every host, an exact host an earlier pattern
// already matches, duplicate hosts, and patterns no cleaned host can match
// (a port, whitespace, a leading or trailing dot). It also reports `$n`
// references beyond the captures of some host of the route and `$0`.
// Findings come in route order, then host order, then backend order.
func Lint(specs []Spec) []Finding {
	var (
		out     []Finding
		earlier []*pattern
	)
	for ri, spec := range specs {
		templated := false
		for _, b := range spec.Backends {
			templated = templated || hasParam(b)
		}
		for hi, h := range spec.Hosts {
			p := compilePattern(strings.ToLower(h), ri, hi, templated)
			if msg := shadowed(p, earlier); msg != "" {
				out = append(out, Finding{Route: ri, Host: hi, Backend: -1, Msg: msg})
			} else if msg := unmatchable(p.text); msg != "" {
				out = append(out, Finding{Route: ri, Host: hi, Backend: -1, Msg: msg})
			}
			earlier = append(earlier, p)
		}
		out = append(out, lintBackends(ri, spec)...)
	}
	return out
}

// shadowed explains why an earlier pattern always wins over p, or returns "".
func shadowed(p *pattern, earlier []*pattern) string {
	for _, q := range earlier {
		if q.text == p.text {
			return fmt.Sprintf("duplicate host %q: route %d host %d has it already", p.text, q.route, q.host)
		}
	}
	for _, q := range earlier {
		// A checked catch-all still lets hosts with other bytes through.
		if q.catchAll() && !q.checked {
			return fmt.Sprintf("host %q never matches: route %d host %d (%q) matches every host first",
				p.text, q.route, q.host, q.text)
		}
	}
	if !p.literal() {
		return ""
	}
	for _, q := range earlier {
		if !q.literal() && q.match(p.text, nil) {
			return fmt.Sprintf("host %q never matches: route %d host %d (%q) matches it first",
				p.text, q.route, q.host, q.text)
		}
	}
	return ""
}

// unmatchable explains why no cleaned host can ever equal text, or returns "".
func unmatchable(text string) string {
	switch {
	case strings.ContainsRune(text, ':'):
		return fmt.Sprintf("host %q never matches: hosts are matched without a port", text)
	case strings.ContainsAny(text, " \t\r\n"):
		return fmt.Sprintf("host %q never matches: it contains whitespace", text)
	case strings.HasPrefix(text, ".") || strings.HasSuffix(text, "."):
		return fmt.Sprintf("host %q never matches: hosts are matched with leading and trailing dots trimmed", text)
	}
	return ""
}

// onlyCaptures reports a template whose host part (before a ":port") holds nothing
// but `$n` references, dots and dashes: the player writes the whole host.
func onlyCaptures(backend string) bool {
	host := backend
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	rest := strings.TrimFunc(stripParams(host), func(r rune) bool { return r == '.' || r == '-' })
	return rest == "" && hasParam(host)
}

// stripParams removes every `$n` reference from s.
func stripParams(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		start, _, end := NextParam(s, i)
		b.WriteString(s[i:start])
		i = end
	}
	return b.String()
}

// lintBackends reports `$n` references that some host of the route cannot fill.
func lintBackends(ri int, spec Spec) []Finding {
	var out []Finding
	for bi, b := range spec.Backends {
		if hasZeroParam(b) {
			out = append(out, Finding{Route: ri, Host: -1, Backend: bi,
				Msg: fmt.Sprintf("backend %q uses $0, which refers to nothing (captures start at $1)", b)})
		}
		need := MaxParam(b)
		if need == 0 {
			continue
		}
		if onlyCaptures(b) {
			out = append(out, Finding{Route: ri, Host: -1, Backend: bi,
				Msg: fmt.Sprintf("backend %q: its host is nothing but captures, so players choose where the proxy dials "+
					"(only loopback, link-local and the proxy's own addresses are refused when dialling); write the domain out, e.g. '$1.internal.example.com:25565'", b)})
		}
		for hi, h := range spec.Hosts {
			if have := Wildcards(h); need > have {
				out = append(out, Finding{Route: ri, Host: hi, Backend: bi,
					Msg: fmt.Sprintf("backend %q uses $%d but host %q has %d capture(s); the reference stays literal, so that backend cannot be dialled",
						b, need, h, have)})
			}
		}
	}
	return out
}
