package route

import "strings"

// Spec is one route as configured: the host patterns it answers and the
// backend addresses (host[:port], possibly with `$n` templates) it dials.
type Spec struct {
	Hosts    []string
	Backends []string
}

// Match is the result of a successful Table.Match.
type Match struct {
	Route   int    // index into the specs given to Compile
	Pattern string // the host pattern that matched, lower-cased
	// Backends are the route's backends with `$n` filled. When the route has
	// no templates this aliases the compiled slice: callers must not modify it.
	Backends []string
}

// Table is a compiled route table. It is immutable after Compile and safe for
// concurrent use by any number of goroutines.
type Table struct {
	routes   []compiledRoute
	patterns []*pattern     // every host pattern, in configuration order
	exact    map[string]int // literal pattern -> index of its first occurrence in patterns
	wild     []int          // indexes into patterns of the non-literal ones, ascending
}

type compiledRoute struct {
	backends  []string
	templated bool // some backend references a capture
}

// maxStackCaptures is how many captures Match keeps on the stack before it
// allocates; real patterns have one or two.
const maxStackCaptures = 8

// Compile builds a Table from specs. Patterns are lower-cased. An empty
// pattern is a literal that matches only an empty host, as in Gate. The error
// is always nil today; it is kept so a future rule can refuse a table.
func Compile(specs []Spec) (*Table, error) {
	t := &Table{
		routes: make([]compiledRoute, len(specs)),
		exact:  make(map[string]int),
	}
	for ri, spec := range specs {
		cr := compiledRoute{backends: append([]string(nil), spec.Backends...)}
		for _, b := range spec.Backends {
			cr.templated = cr.templated || hasParam(b)
		}
		t.routes[ri] = cr
		for hi, h := range spec.Hosts {
			p := compilePattern(strings.ToLower(h), ri, hi, cr.templated)
			idx := len(t.patterns)
			t.patterns = append(t.patterns, p)
			if !p.literal() {
				t.wild = append(t.wild, idx)
				continue
			}
			if _, dup := t.exact[p.text]; !dup {
				t.exact[p.text] = idx
			}
		}
	}
	return t, nil
}

// Len returns the number of routes.
func (t *Table) Len() int { return len(t.routes) }

// Match returns the first route, in configuration order, with a host pattern
// that matches host. host is expected to be cleaned already (lower case, no
// suffix or port); upper-case input still matches, at the cost of a copy.
func (t *Table) Match(host string) (Match, bool) {
	if t == nil {
		return Match{}, false
	}
	host = lowerASCII(host)
	first, exact := t.exact[host]
	for _, wi := range t.wild {
		if exact && wi > first {
			break
		}
		if m, ok := t.try(wi, host); ok {
			return m, true
		}
	}
	if exact {
		// A literal pattern has no captures; its route's `$n` stay literal
		// (Expand keeps references beyond the captures), as in Gate.
		return t.try(first, host)
	}
	return Match{}, false
}

// try matches pattern pi against host and builds the result.
func (t *Table) try(pi int, host string) (Match, bool) {
	p := t.patterns[pi]
	r := &t.routes[p.route]
	if !r.templated {
		if !p.match(host, nil) {
			return Match{}, false
		}
		return Match{Route: p.route, Pattern: p.text, Backends: r.backends}, true
	}
	var buf [maxStackCaptures]string
	var caps []string
	if p.wild <= maxStackCaptures {
		caps = buf[:p.wild]
	} else {
		caps = make([]string, p.wild)
	}
	if !p.match(host, caps) {
		return Match{}, false
	}
	backends := make([]string, len(r.backends))
	for i, b := range r.backends {
		backends[i] = Expand(b, caps)
	}
	return Match{Route: p.route, Pattern: p.text, Backends: backends}, true
}

// lowerASCII lower-cases s, returning s itself when there is nothing to
// change so that the common, already-clean host costs no allocation.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}
