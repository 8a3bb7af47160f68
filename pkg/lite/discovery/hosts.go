package discovery

import (
	"strings"
)

// SplitHosts reads a host list as written on an object (a Service's
// annotation, a container's label): hosts separated by commas or newlines,
// as mc-router reads them (its README recommends a YAML block with one host
// per line), each trimmed of spaces and lowercased; blanks and repeats are
// dropped, the order written is kept. This is the one reading of a host list
// for every source.
func SplitHosts(s string) []string {
	var out []string
	seen := map[string]bool{} // a tenant writes the list: repeats are found in linear time
	for h := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == '\n' }) {
		h = strings.ToLower(strings.TrimSpace(h))
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}
