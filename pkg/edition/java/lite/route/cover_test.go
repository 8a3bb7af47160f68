package route

import "testing"

var coverCases = []struct {
	outer, inner string
	want         bool
}{
	{"lobby.example.com", "lobby.example.com", true},
	{"lobby.example.com", "LOBBY.example.com", true},
	{"*.example.com", "lobby.example.com", true},
	{"*.example.com", "*.games.example.com", true},
	{"*.example.com", "*", false},
	{"*.example.com", "example.com", false},
	{"*", "*", true},
	{"*", "anything", true},
	{"lobby.example.com", "*.example.com", false},
	{"mc?.example.com", "mc1.example.com", true},
	{"mc?.example.com", "mc?.example.com", true},
	{"mc?.example.com", "mc*.example.com", false},
	{"mc1.example.com", "mc?.example.com", false},
	{"*.tenant.example.com", "*.example.com", false},
}

func TestCovers(t *testing.T) {
	for _, tc := range coverCases {
		if got := Covers(tc.outer, tc.inner); got != tc.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tc.outer, tc.inner, got, tc.want)
		}
	}
}
