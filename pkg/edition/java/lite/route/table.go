package route

import (
	"fmt"
	"sort"
	"strings"
)

// Spec is one route as configured: the host patterns it answers and the
// backend addresses (host[:port], possibly with `$n` templates) it dials.
type Spec struct {
	Hosts    []string
	Backends []string
	// Group is the route's precedence group. Routes of one group are tried
	// in configuration order, as the operator wrote them. Across groups an
	// exact host beats a wildcard and a catch-all (a pattern of stars only)
	// comes after every other pattern; at equal rank the lower group wins.
	// Groups must not decrease along the specs. Zero everywhere is one group:
	// plain configuration order.
	Group int
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
	patterns []*pattern // every host pattern, in configuration order
	// exact maps a literal pattern to the index in patterns of its first
	// occurrence in each group, ascending.
	exact map[string][]int
	wild  []int // indexes into patterns of the non-literal ones, ascending
}

type compiledRoute struct {
	backends  []string
	templated bool // some backend references a capture
}

// maxStackCaptures is how many captures Match keeps on the stack before it
// allocates; real patterns have one or two.
const maxStackCaptures = 8

// Compile builds a Table from specs. Patterns are lower-cased. An empty
// pattern is a literal that matches only an empty host, as in Gate. It fails
// only when a spec's Group is lower than the one before it.
func Compile(specs []Spec) (*Table, error) {
	t := &Table{
		routes: make([]compiledRoute, len(specs)),
		exact:  make(map[string][]int),
	}
	groupStart := 0 // index in patterns of the current group's first pattern
	for ri, spec := range specs {
		if ri > 0 && spec.Group != specs[ri-1].Group {
			if spec.Group < specs[ri-1].Group {
				return nil, fmt.Errorf("route %d: group %d after group %d", ri, spec.Group, specs[ri-1].Group)
			}
			groupStart = len(t.patterns)
		}
		cr := compiledRoute{backends: append([]string(nil), spec.Backends...)}
		for _, b := range spec.Backends {
			cr.templated = cr.templated || hasParam(b)
		}
		t.routes[ri] = cr
		for hi, h := range spec.Hosts {
			p := compilePattern(strings.ToLower(h), ri, hi, cr.templated)
			p.groupStart = groupStart
			idx := len(t.patterns)
			t.patterns = append(t.patterns, p)
			if !p.literal() {
				t.wild = append(t.wild, idx)
				continue
			}
			if occ := t.exact[p.text]; len(occ) == 0 || t.patterns[occ[len(occ)-1]].groupStart != groupStart {
				t.exact[p.text] = append(occ, idx)
			}
		}
	}
	return t, nil
}

// Len returns the number of routes.
func (t *Table) Len() int { return len(t.routes) }

// Match returns the route that takes host. Within a group that is the first
// route, in configuration order, with a host pattern that matches; across
// groups see Spec.Group. host is expected to be cleaned already (lower case,
// no suffix or port); upper-case input still matches, at the cost of a copy.
func (t *Table) Match(host string) (Match, bool) {
	if t == nil {
		return Match{}, false
	}
	host = lowerASCII(host)
	for _, e := range t.exact[host] {
		// The group's own order first: a wildcard written before the exact
		// host takes it, and the group then competes with that wildcard.
		if !t.anyWild(host, t.patterns[e].groupStart, e) {
			// A literal pattern has no captures; its route's `$n` stay
			// literal (Expand keeps references beyond the captures), as in Gate.
			return t.try(e, host)
		}
	}
	return t.bestWild(host)
}

// anyWild reports whether a wildcard pattern with an index in [lo, hi) matches.
func (t *Table) anyWild(host string, lo, hi int) bool {
	for _, wi := range t.wild[sort.SearchInts(t.wild, lo):] {
		if wi >= hi {
			return false
		}
		if _, ok := t.try(wi, host); ok {
			return true
		}
	}
	return false
}

// bestWild returns, when no exact host wins, the match of the first group
// whose first matching pattern is a wildcard other than a catch-all, else of
// the first group whose first matching pattern is a catch-all.
func (t *Table) bestWild(host string) (Match, bool) {
	var catchAll Match
	found, decided := false, -1 // decided: groupStart of the group whose winner is a catch-all
	for _, wi := range t.wild {
		p := t.patterns[wi]
		if p.groupStart == decided {
			continue
		}
		m, ok := t.try(wi, host)
		if !ok {
			continue
		}
		if !p.catchAll() {
			return m, true
		}
		decided = p.groupStart
		if !found {
			catchAll, found = m, true
		}
	}
	return catchAll, found
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
