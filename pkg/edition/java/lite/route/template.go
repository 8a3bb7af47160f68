package route

import "strings"

// maxParamNumber caps the number parsed after '$' so that a long digit run
// cannot overflow; any reference this large is beyond every pattern anyway.
const maxParamNumber = 1 << 20

// Wildcards returns the number of captures of a host pattern: one per `*` and
// one per `?`.
func Wildcards(pattern string) int {
	return strings.Count(pattern, "*") + strings.Count(pattern, "?")
}

// MaxParam returns the highest `$n` referenced by a backend template, 0 if it
// references none. Digits are read greedily, so `$10` is ten. `$0` references
// nothing and counts as 0.
func MaxParam(backend string) int {
	highest := 0
	eachParam(backend, func(n int) { highest = max(highest, n) })
	return highest
}

// hasParam reports whether the template has any `$n`, `$0` included.
func hasParam(backend string) bool {
	found := false
	eachParam(backend, func(int) { found = true })
	return found
}

// hasZeroParam reports whether the template contains `$0` (or `$00`...),
// which refers to no capture because captures are numbered from 1.
func hasZeroParam(backend string) bool {
	found := false
	eachParam(backend, func(n int) { found = found || n == 0 })
	return found
}

// eachParam calls fn with the number of every `$n` reference in backend.
func eachParam(backend string, fn func(n int)) {
	for i := 0; ; {
		start, n, end := NextParam(backend, i)
		if start == len(backend) {
			return
		}
		fn(n)
		i = end
	}
}

// NextParam finds the first `$n` reference in s at or after index i: the index of
// its '$', its number (saturated, see param) and the index after its last digit.
// start == len(s) when there is none. A '$' not followed by a digit is literal text.
// It is the one scanner of template references: expansion, lint and the admin
// view all walk templates with it.
func NextParam(s string, i int) (start, n, end int) {
	for ; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		if n, end := param(s, i+1); end > i+1 {
			return i, n, end
		}
	}
	return len(s), 0, len(s)
}

// param parses the decimal number starting at s[i]. It returns the value
// (saturated at maxParamNumber) and the index after the last digit; end == i
// means there was no digit.
func param(s string, i int) (n, end int) {
	end = i
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		if n < maxParamNumber {
			n = n*10 + int(s[end]-'0')
		}
		end++
	}
	return min(n, maxParamNumber), end
}

// Expand fills the `$n` references of a backend template with captures[n-1].
// A reference to a capture that does not exist (including `$0`) stays as
// written, as in Gate: such a backend then fails to dial with its `$n` in the
// message. Digits are read greedily, so with two captures `$10` stays `$10`
// (Gate would write the first capture and a 0). A '$' not followed by a digit
// is kept as is.
func Expand(backend string, captures []string) string {
	if strings.IndexByte(backend, '$') < 0 {
		return backend
	}
	var b strings.Builder
	b.Grow(expandedLen(backend, captures))
	for i := 0; i < len(backend); {
		start, n, end := NextParam(backend, i)
		b.WriteString(backend[i:start])
		if start == len(backend) {
			break
		}
		if n >= 1 && n <= len(captures) {
			b.WriteString(captures[n-1])
		} else {
			b.WriteString(backend[start:end])
		}
		i = end
	}
	return b.String()
}

// expandedLen computes the exact length of Expand's result so that the
// builder allocates once.
func expandedLen(backend string, captures []string) int {
	size := 0
	for i := 0; i < len(backend); {
		start, n, end := NextParam(backend, i)
		size += start - i
		if start == len(backend) {
			break
		}
		if n >= 1 && n <= len(captures) {
			size += len(captures[n-1])
		} else {
			size += end - start
		}
		i = end
	}
	return size
}
