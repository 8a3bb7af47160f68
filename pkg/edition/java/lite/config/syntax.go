package config

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

var syntaxLineRE = regexp.MustCompile(`line (\d+)`)

// syntaxError returns the line and message of a YAML syntax error. For a tab
// in indentation the YAML parser names the line where the value it was
// reading began, which is the line before the tab when the tab's line would
// continue that value; the line is moved to the tab's, in the message too.
func syntaxError(data []byte, err error) (int, string) {
	msg := err.Error()
	m := syntaxLineRE.FindStringSubmatchIndex(msg)
	if m == nil {
		return 0, msg
	}
	line, _ := strconv.Atoi(msg[m[2]:m[3]])
	if !strings.Contains(msg, "found a tab character") {
		return line, msg
	}
	tab := tabIndentedLine(data, line)
	if tab == 0 {
		return line, msg
	}
	return tab, msg[:m[2]] + strconv.Itoa(tab) + msg[m[3]:]
}

// tabIndentedLine returns the first line from line from on (counting from 1)
// whose indentation has a tab, or 0.
func tabIndentedLine(data []byte, from int) int {
	n := 0
	for l := range bytes.SplitSeq(data, []byte("\n")) {
		n++
		indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
		if n >= from && bytes.IndexByte(indent, '\t') >= 0 {
			return n
		}
	}
	return 0
}
