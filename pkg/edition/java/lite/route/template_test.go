package route

import "testing"

// countCase is a string and what a counting function of this package gives
// for it.
type countCase struct {
	name string
	in   string
	want int
}

func runCountCases(t *testing.T, fn string, count func(string) int, cases []countCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := count(tc.in); got != tc.want {
				t.Fatalf("%s(%q) = %d, want %d", fn, tc.in, got, tc.want)
			}
		})
	}
}

func TestWildcards(t *testing.T) {
	runCountCases(t, "Wildcards", Wildcards, []countCase{
		{"exact host", "play.example.com", 0},
		{"subdomain star", "*.example.com", 1},
		{"catch-all", "*", 1},
		{"stars and question marks", "*.mc?.*", 3},
		{"adjacent stars", "**", 2},
	})
}

func TestMaxParam(t *testing.T) {
	runCountCases(t, "MaxParam", MaxParam, []countCase{
		{"plain address", "10.0.0.1:25565", 0},
		{"one reference", "$1.servers.svc:25565", 1},
		{"highest of several", "$2-$1.svc", 2},
		{"two digits are ten", "$10.svc", 10},
		{"dollar without digit", "a$b:1", 0},
		{"zero references nothing", "$0.svc", 0},
		{"trailing dollar", "svc$", 0},
		{"huge number saturates", "$99999999999999999999999", maxParamNumber},
	})
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name     string
		backend  string
		captures []string
		want     string
	}{
		{"no template", "10.0.0.1:25565", []string{"x"}, "10.0.0.1:25565"},
		{"first capture", "$1.servers.svc:25565", []string{"abc"}, "abc.servers.svc:25565"},
		{"two captures reordered", "$2.$1:25565", []string{"a", "b"}, "b.a:25565"},
		{"ten captures", "$10-$1", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"}, "ten-1"},
		{"missing capture stays literal (Gate)", "a$3b", []string{"x"}, "a$3b"},
		{"zero stays literal", "a$0b", []string{"x"}, "a$0b"},
		{"port from a capture", "127.0.0.1:$1", []string{"25570"}, "127.0.0.1:25570"},
		{"host and port from captures", "$1:$2", []string{"10.0.0.1", "25570"}, "10.0.0.1:25570"},
		{"port from two captures", "127.0.0.1:$1$2", []string{"255", "70"}, "127.0.0.1:25570"},
		{"dollar without digit kept", "a$b$", []string{"x"}, "a$b$"},
		{"empty capture", "x$1.svc", []string{""}, "x.svc"},
		{"nil captures", "$1:1", nil, "$1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Expand(tc.backend, tc.captures); got != tc.want {
				t.Fatalf("Expand(%q, %q) = %q, want %q", tc.backend, tc.captures, got, tc.want)
			}
		})
	}
}
