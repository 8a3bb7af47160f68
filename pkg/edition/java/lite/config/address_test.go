package config

import "testing"

// addrCase is an address and the error its check must give ("" for none).
type addrCase struct{ name, addr, wantErr string }

func runAddrCases(t *testing.T, check func(string) error, cases []addrCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := check(tc.addr); err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Fatalf("check(%q) = %q, want %q", tc.addr, got, tc.wantErr)
			}
		})
	}
}

var backendAddrCases = []addrCase{
	{"host and port", "backend.example.com:25566", ""},
	{"host without port", "backend.example.com", ""},
	{"IPv4 and port", "10.0.0.1:25565", ""},
	{"bracketed IPv6 and port", "[::1]:25565", ""},
	{"bracketed IPv6 without port", "[2001:db8::1]", ""},
	{"template label", "$1.servers.svc:25565", ""},
	{"template as whole host", "$1:25565", ""},
	{"underscore label", "_minecraft.example.com", ""},
	{"FQDN trailing dot", "example.com.:25565", ""},
	{"bare IPv6", "::1", "IPv6 addresses need brackets, e.g. [::1]:25565"},
	{"port zero", "a:0", "port out of range (want 1..65535)"},
	{"port too big", "a:65536", "port out of range (want 1..65535)"},
	{"signed port", "a:+1", "port must be a number"},
	{"template port, checked after expansion (Gate)", "127.0.0.1:$1", ""},
	{"template host and port", "$1:$2", ""},
	{"template port from two captures", "127.0.0.1:$1$2", ""},
	{"template port with digits", "a:25$1", ""},
	{"template host, literal bad port", "$1:0", "port out of range (want 1..65535)"},
	{"missing host", ":25565", "missing host"},
	{"unclosed bracket", "[::1:25565", "missing ']' after IPv6 address"},
	{"junk after bracket", "[::1]x", "want [ipv6]:port"},
	{"IPv4 in brackets", "[10.0.0.1]:1", "only IPv6 addresses go in brackets"},
	{"empty label", "a..b:1", "invalid host name: empty or over-long label"},
	{"slash in host", "a/b:1", `invalid host name: character "/"`},
}

func TestValidBackend(t *testing.T) { runAddrCases(t, validBackend, backendAddrCases) }

var listenAddrCases = []addrCase{
	{"all interfaces", "0.0.0.0:25565", ""},
	{"empty host", ":25565", ""},
	{"localhost", "localhost:25565", ""},
	{"IPv6 any", "[::]:25565", ""},
	{"port zero picks a free port", "127.0.0.1:0", ""},
	{"no port", "localhost", "want host:port"},
	{"port too big", "localhost:70000", "port out of range (want 0..65535)"},
}

func TestValidListenAddr(t *testing.T) { runAddrCases(t, validListenAddr, listenAddrCases) }

func TestWarningAndErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"warning with everything", Warning{File: "c.yml", Line: 3, Path: "config.x", Msg: "m"}.String(), "c.yml:3: config.x: m"},
		{"warning without file", Warning{Line: 3, Path: "config.x", Msg: "m"}.String(), "3: config.x: m"},
		{"error without line or path", (&Error{File: "c.yml", Msg: "m"}).Error(), "c.yml: m"},
		{"error with nothing but a message", (&Error{Msg: "m"}).Error(), "m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
