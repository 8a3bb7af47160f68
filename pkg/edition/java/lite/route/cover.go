package route

import "strings"

// Covers reports whether pattern outer matches every host that pattern inner
// matches, both in the host pattern language (case-insensitive). It reads
// inner as text: outer's `*` may span inner's wildcards, outer's `?` stands
// for one byte of inner that is not a `*`, and a literal byte of outer only
// covers the same literal byte. The test errs only towards "no": `??*` does
// not cover `?*?` here, although both match every host of two bytes or more.
func Covers(outer, inner string) bool {
	o, s := strings.ToLower(outer), strings.ToLower(inner)
	// row[j]: o[:i] covers s[:j], for the current i.
	row := make([]bool, len(s)+1)
	next := make([]bool, len(s)+1)
	row[0] = true
	for i := 0; i < len(o); i++ {
		c := o[i]
		next[0] = c == '*' && row[0]
		for j := 1; j <= len(s); j++ {
			switch b := s[j-1]; c {
			case '*':
				next[j] = row[j] || next[j-1]
			case '?':
				next[j] = row[j-1] && b != '*'
			default:
				next[j] = row[j-1] && b == c
			}
		}
		row, next = next, row
	}
	return row[len(s)]
}
