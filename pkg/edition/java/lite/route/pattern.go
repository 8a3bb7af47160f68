package route

import "strings"

// pattern is one compiled host pattern. The text is split at every `*` into
// segments; a segment holds literal bytes and `?`. Matching places the first
// segment at the start of the host, the last at the end, and every middle
// segment as far right as the segments after it allow. That placement is
// exactly the leftmost-greedy assignment of regexp `(.*)` groups, and it needs
// no backtracking: the work is bounded by len(host) * len(pattern).
type pattern struct {
	text  string // lower-cased pattern
	route int    // index of the route in the specs
	host  int    // index of the pattern within its route's hosts
	// groupStart is the index in the table's patterns of the first pattern
	// of this pattern's group (Spec.Group).
	groupStart int

	segs    []string // text split at '*'; len(segs) == stars+1
	segCap  []int    // capture index of the first '?' of each segment
	segQs   []bool   // whether a segment contains '?'
	minLen  int      // bytes the host needs outside the stars
	lo      []int    // lo[j]: lowest start of segs[j] (sum of the lengths before it)
	wild    int      // number of captures
	checked bool     // captures must be clean because the route fills templates
}

func compilePattern(text string, routeIdx, hostIdx int, checked bool) *pattern {
	p := &pattern{text: text, route: routeIdx, host: hostIdx, checked: checked}
	p.segs = strings.Split(text, "*")
	p.segCap = make([]int, len(p.segs))
	p.segQs = make([]bool, len(p.segs))
	p.lo = make([]int, len(p.segs))
	capIdx := 0
	for j, seg := range p.segs {
		if j > 0 {
			capIdx++ // the star before this segment
		}
		p.segCap[j] = capIdx
		q := strings.Count(seg, "?")
		p.segQs[j] = q > 0
		capIdx += q
		p.lo[j] = p.minLen
		p.minLen += len(seg)
	}
	p.wild = capIdx
	return p
}

// literal reports whether the pattern has no wildcard at all.
func (p *pattern) literal() bool { return p.wild == 0 }

// catchAll reports whether the pattern consists of stars only.
func (p *pattern) catchAll() bool { return p.text != "" && strings.Trim(p.text, "*") == "" }

// starCap returns the capture index of the star that precedes segs[j].
func (p *pattern) starCap(j int) int { return p.segCap[j] - 1 }

// match reports whether host matches the pattern. When caps is not nil it must
// have room for p.wild captures and receives them in pattern order. When the
// pattern is checked, a match whose captures hold any byte outside
// [a-z0-9.-] (and A-Z) is no match.
func (p *pattern) match(host string, caps []string) bool {
	n := len(host)
	if n < p.minLen {
		return false
	}
	last := len(p.segs) - 1
	if last == 0 {
		return n == len(p.text) && p.segment(0, host, 0, caps)
	}
	end := n - len(p.segs[last])
	if !p.segment(0, host, 0, caps) || !p.segment(last, host, end, caps) {
		return false
	}
	// end is where the star after the segment being placed stops.
	for j := last - 1; j >= 1; j-- {
		q := p.findLast(j, host, end-len(p.segs[j]))
		if q < 0 || !p.segment(j, host, q, caps) {
			return false
		}
		if !p.star(j+1, host[q+len(p.segs[j]):end], caps) {
			return false
		}
		end = q
	}
	return p.star(1, host[len(p.segs[0]):end], caps)
}

// star records the capture of the star in front of segs[j].
func (p *pattern) star(j int, run string, caps []string) bool {
	if p.checked && !clean(run) {
		return false
	}
	if caps != nil {
		caps[p.starCap(j)] = run
	}
	return true
}

// segment reports whether segs[j] matches host at pos and records its '?'
// captures.
func (p *pattern) segment(j int, host string, pos int, caps []string) bool {
	seg := p.segs[j]
	if !segmentAt(seg, host, pos) {
		return false
	}
	if !p.segQs[j] {
		return true
	}
	k := p.segCap[j]
	for i := 0; i < len(seg); i++ {
		if seg[i] != '?' {
			continue
		}
		c := host[pos+i]
		if p.checked && !cleanByte(c) {
			return false
		}
		if caps != nil {
			caps[k] = host[pos+i : pos+i+1]
		}
		k++
	}
	return true
}

// findLast returns the highest start in [p.lo[j], maxStart] at which segs[j]
// matches, or -1.
func (p *pattern) findLast(j int, host string, maxStart int) int {
	seg, lo := p.segs[j], p.lo[j]
	if maxStart < lo {
		return -1
	}
	if !p.segQs[j] {
		i := strings.LastIndex(host[lo:maxStart+len(seg)], seg)
		if i < 0 {
			return -1
		}
		return lo + i
	}
	for q := maxStart; q >= lo; q-- {
		if segmentAt(seg, host, q) {
			return q
		}
	}
	return -1
}

// segmentAt compares seg with host[pos:], '?' matching any byte.
func segmentAt(seg, host string, pos int) bool {
	if pos < 0 || pos+len(seg) > len(host) {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; c != '?' && c != host[pos+i] {
			return false
		}
	}
	return true
}

// clean reports whether s may be used as a capture in a backend address.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if !cleanByte(s[i]) {
			return false
		}
	}
	return true
}

func cleanByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c >= 'A' && c <= 'Z'
}
