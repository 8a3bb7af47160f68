package wire_test

import (
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestSplitAddress(t *testing.T) {
	tests := []struct {
		name, addr, host, suffix string
	}{
		{"plain host", "mc.example.com", "mc.example.com", ""},
		{"empty", "", "", ""},
		{"forge FML marker", "mc.example.com\x00FML\x00", "mc.example.com", "\x00FML\x00"},
		{"forge FML2 suffix", "mc.example.com\x00FML2\x00", "mc.example.com", "\x00FML2\x00"},
		{"forge FML3 suffix", "mc.example.com\x00FML3\x00", "mc.example.com", "\x00FML3\x00"},
		{"neoforge marker", "mc.example.com\x00FORGE", "mc.example.com", "\x00FORGE"},
		{"tcpshield suffix", "mc.example.com///198.51.100.4:50000///1700000000///sig", "mc.example.com", "///198.51.100.4:50000///1700000000///sig"},
		{"bungeecord forwarding", "mc.example.com\x00198.51.100.4\x00069a79f444e94726a5befca90e38aaf5\x00[]", "mc.example.com", "\x00198.51.100.4\x00069a79f444e94726a5befca90e38aaf5\x00[]"},
		{"NUL before triple slash", "a\x00b///c", "a", "\x00b///c"},
		{"triple slash before NUL", "a///b\x00c", "a", "///b\x00c"},
		{"two slashes are not a separator", "a//b", "a//b", ""},
		{"four slashes cut at the first three", "a////b", "a", "////b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host, suffix := wire.SplitAddress(tt.addr)
			if host != tt.host || suffix != tt.suffix {
				t.Fatalf("SplitAddress(%q) = %q, %q; want %q, %q", tt.addr, host, suffix, tt.host, tt.suffix)
			}
		})
	}
}

func TestAddRealIP(t *testing.T) {
	const unix = 1700000000
	tests := []struct {
		name, addr, client, want string
	}{
		{"plain host", "mc.example.com", "203.0.113.7:51234", "mc.example.com///203.0.113.7:51234///1700000000"},
		{"ipv6 player", "mc.example.com", "[2001:db8::7]:51234", "mc.example.com///[2001:db8::7]:51234///1700000000"},
		{"forge suffix stays last", "mc.example.com\x00FML2\x00", "203.0.113.7:1", "mc.example.com///203.0.113.7:1///1700000000\x00FML2\x00"},
		{"existing block kept", "mc.example.com///198.51.100.4:50000///1600000000///sig", "203.0.113.7:1", "mc.example.com///198.51.100.4:50000///1600000000///sig"},
		{"block after NUL kept", "mc.example.com\x00x///y", "203.0.113.7:1", "mc.example.com\x00x///y"},
		{"empty host", "", "203.0.113.7:1", "///203.0.113.7:1///1700000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wire.AddRealIP(tt.addr, tt.client, unix); got != tt.want {
				t.Fatalf("AddRealIP(%q, %q) = %q, want %q", tt.addr, tt.client, got, tt.want)
			}
		})
	}
}

// The rewritten address parses back to the same routing host with the block as suffix.
func TestAddRealIPRoundTrip(t *testing.T) {
	addr := wire.AddRealIP("Play.Example.com\x00FML3\x00", "203.0.113.7:51234", 1700000000)
	host, suffix := wire.SplitAddress(addr)
	if host != "Play.Example.com" || suffix != "///203.0.113.7:51234///1700000000\x00FML3\x00" {
		t.Fatalf("SplitAddress(%q) = %q, %q", addr, host, suffix)
	}
	if got := wire.CleanHost(addr); got != "play.example.com" {
		t.Fatalf("CleanHost(%q) = %q", addr, got)
	}
}

func TestCleanHost(t *testing.T) {
	tests := []struct {
		name, addr, want string
	}{
		{"already clean", "mc.example.com", "mc.example.com"},
		{"upper case", "MC.Example.COM", "mc.example.com"},
		{"trailing dot", "play.example.com.", "play.example.com"},
		{"leading and repeated dots", "..play.example.com..", "play.example.com"},
		{"port typed by the player", "play.example.com:25565", "play.example.com"},
		{"dot before port", "play.example.com.:25565", "play.example.com"},
		{"dot after port", "play.example.com:25565.", "play.example.com"},
		{"ipv4 with port", "203.0.113.7:25565", "203.0.113.7"},
		{"bracketed ipv6 with port", "[::1]:25565", "[::1]"},
		{"bracketed ipv6 alone", "[2001:db8::1]", "[2001:db8::1]"},
		{"bare ipv6 loopback", "::1", "::1"},
		{"bare ipv6 ending in digits", "2001:db8::25", "2001:db8::25"},
		{"non-digit port kept", "host:abc", "host:abc"},
		{"empty port kept", "host:", "host:"},
		{"forge FML2 suffix", "MC.example.com\x00FML2\x00", "mc.example.com"},
		{"tcpshield suffix", "Play.Example.com.///203.0.113.7:51234///1700000000///sig", "play.example.com"},
		{"floodgate data", "mc.example.com\x00^Floodgate^QUJD", "mc.example.com"},
		{"only non-ascii letters are kept as is", "Bücher.Example", "bücher.example"},
		{"empty", "", ""},
		{"only dots", "...", ""},
		{"suffix only", "\x00FML3\x00", ""},
		{"infinity filter backslash", "play.example.com\\abc\\1.2.3.4", "play.example.com"},
		{"backslash after a port and a dot", "Play.Example.com.:25565\\GUID\\203.0.113.7", "play.example.com"},
		{"backslash then forge marker", "play.example.com\\GUID\\ip\x00FML3\x00", "play.example.com"},
		{"backslash right after forge marker is the marker's", "play.example.com\x00FML\\x", "play.example.com"},
		{"leading backslash leaves no host", "\\play.example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wire.CleanHost(tt.addr)
			if got != tt.want {
				t.Fatalf("CleanHost(%q) = %q, want %q", tt.addr, got, tt.want)
			}
			if again := wire.CleanHost(got); again != got {
				t.Fatalf("CleanHost not idempotent: %q -> %q -> %q", tt.addr, got, again)
			}
		})
	}
}

func TestCleanHostAllocations(t *testing.T) {
	tests := []struct {
		name, addr string
		want       float64
	}{
		{"clean host", "mc.example.com", 0},
		{"clean host with forge suffix and port", "mc.example.com:25565\x00FML3\x00", 0},
		{"infinity filter suffix", "mc.example.com\\GUID\\203.0.113.7", 0},
		{"upper case needs one copy", "MC.example.com", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testing.AllocsPerRun(100, func() { _ = wire.CleanHost(tt.addr) }); got != tt.want {
				t.Fatalf("CleanHost(%q) allocates %v times, want %v", tt.addr, got, tt.want)
			}
		})
	}
}
