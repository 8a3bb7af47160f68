package discovery_test

import (
	"slices"
	"testing"

	"go.minekube.com/gate/pkg/lite/discovery"
)

func TestSplitHosts(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"one", "a.com", []string{"a.com"}},
		{"comma", "a.com,b.com", []string{"a.com", "b.com"}},
		{"comma with spaces", "a.com, b.com", []string{"a.com", "b.com"}},
		{"newline separated", "a.com\nb.com", []string{"a.com", "b.com"}},
		{"mixed comma and newline with spaces", "a.com, \nb.com,  c.com", []string{"a.com", "b.com", "c.com"}},
		{"yaml block with trailing newline", "a.com\nb.com\n", []string{"a.com", "b.com"}},
		{"windows line ends", "a.com\r\nb.com\r\n", []string{"a.com", "b.com"}},
		{"tabs and blank lines", "\ta.com\t\n\n ,\nb.com", []string{"a.com", "b.com"}},
		{"repeats and case", "A.com, a.COM\na.com", []string{"a.com"}},
		{"wildcard kept", "*.a.com\n*", []string{"*.a.com", "*"}},
		{"empty", "", nil},
		{"only separators", " ,\n, ", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := discovery.SplitHosts(c.in); !slices.Equal(got, c.want) {
				t.Fatalf("SplitHosts(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
