package route

import "testing"

func TestCouldExpand(t *testing.T) {
	tests := []struct {
		name, tpl, addr string
		want            bool
	}{
		{"one capture", "$1.dev.svc:25565", "abc.dev.svc:25565", true},
		{"capture with dots and dashes", "$1.dev.svc:25565", "a-b.c.dev.svc:25565", true},
		{"other suffix", "$1.dev.svc:25565", "abc.prod.svc:25565", false},
		{"other port", "$1.dev.svc:25565", "abc.dev.svc:25566", false},
		{"two captures", "$2-$1.svc", "eu-lobby.svc", true},
		{"adjacent captures", "$1$2.svc", "ab.svc", true},
		{"capture in the port", "10.0.0.1:2556$1", "10.0.0.1:25565", true},
		{"character a capture cannot hold", "$1.svc", "a_b.svc", false},
		{"regexp metacharacters are literal", "$1.svc", "abcXsvc", false},
		{"static text differs", "lobby-$1.svc", "hub-1.svc", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CouldExpand(tt.tpl, tt.addr); got != tt.want {
				t.Fatalf("CouldExpand(%q, %q) = %v, want %v", tt.tpl, tt.addr, got, tt.want)
			}
		})
	}
}

