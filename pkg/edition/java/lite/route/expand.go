package route

import (
	"regexp"
	"strings"
)

// CouldExpand reports whether addr could have been expanded from tpl: the
// literal parts of tpl around each $n match, and what fills each $n consists of
// DNS-label characters only (all a capture may contain). It compiles a pattern
// per call: the admin view is not a hot path.
func CouldExpand(tpl, addr string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(tpl); {
		start, _, end := NextParam(tpl, i)
		b.WriteString(regexp.QuoteMeta(tpl[i:start]))
		if start < len(tpl) {
			b.WriteString(`[A-Za-z0-9.-]*`)
		}
		i = end
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(addr)
}
