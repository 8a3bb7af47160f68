package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// warningCase is a config that loads, with the warnings it must give in
// file order.
type warningCase struct {
	name string
	src  string
	want []string
}

func runWarningCases(t *testing.T, cases []warningCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { wantWarnings(t, tc.src, tc.want) })
	}
}

// wantWarnings fails t unless src loads with exactly the warnings want, and
// returns the config.
func wantWarnings(t *testing.T, src string, want []string) *Config {
	t.Helper()
	cfg, warns, err := parse(t, src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got := warningStrings(warns); !slices.Equal(got, want) {
		t.Fatalf("warnings:\n got %q\nwant %q", got, want)
	}
	return cfg
}

// wantErrors fails t unless a Parse that returned cfg and err rejected the
// file with exactly the errors want, one per line in err's text, and err is
// of kind.
func wantErrors(t *testing.T, cfg *Config, err error, want []string, kind error) {
	t.Helper()
	if err == nil || cfg != nil {
		t.Fatalf("Parse accepted the input, want errors %q", want)
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not an ErrorList", err)
	}
	got := make([]string, len(list))
	for i, e := range list {
		got[i] = e.Error()
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors:\n got %q\nwant %q", got, want)
	}
	if err.Error() != strings.Join(want, "\n") {
		t.Fatalf("Error() = %q, want the errors one per line", err.Error())
	}
	if !errors.Is(err, kind) {
		t.Fatalf("errors.Is(err, %v) = false", kind)
	}
}
