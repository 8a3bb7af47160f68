package docker

import "testing"

func TestResolveHost(t *testing.T) {
	t.Setenv("DOCKER_HOST", "")
	for _, tt := range []struct {
		host, network, addr string
		bad                 bool
	}{
		{host: "", network: "unix", addr: "/var/run/docker.sock"},
		{host: "unix:///run/user/1000/docker.sock", network: "unix", addr: "/run/user/1000/docker.sock"},
		{host: "tcp://127.0.0.1:2375", network: "tcp", addr: "127.0.0.1:2375"},
		{host: "tcp://[::1]", network: "tcp", addr: "[::1]:2375"},
		{host: "unix://relative.sock", bad: true},
		{host: "ssh://user@host", bad: true},
		{host: "npipe:////./pipe/docker_engine", bad: true},
		{host: "tcp://", bad: true},
	} {
		ep, err := Resolve(tt.host)
		if (err != nil) != tt.bad {
			t.Errorf("%q: err %v, want bad=%v", tt.host, err, tt.bad)
			continue
		}
		if !tt.bad && (ep.Network != tt.network || ep.Addr != tt.addr) {
			t.Errorf("%q: got %s %s, want %s %s", tt.host, ep.Network, ep.Addr, tt.network, tt.addr)
		}
	}
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
	if ep, err := Resolve(""); err != nil || ep.Addr != "127.0.0.1:1" {
		t.Errorf("$DOCKER_HOST not used: %v %v", ep, err)
	}
}
