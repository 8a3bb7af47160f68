package wake

import "testing"

func TestCheckBackend(t *testing.T) {
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{"10.9.0.30:25565", true},
		{"mc.example.com:25566", true},
		{"[::1]:25565", true},
		{"mc.example.com", false},
		{":25565", false},
		{"mc.example.com:0", false},
		{"mc.example.com:65536", false},
		{"mc.example.com:http", false},
		{"a b:25565", false},
		{"::1:25565", false},
		{"", false},
	} {
		if err := CheckBackend(tt.addr); (err == nil) != tt.ok {
			t.Errorf("%q: %v, want ok=%v", tt.addr, err, tt.ok)
		}
	}
}
