package main

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// probeYAML is gateYAML with the probes on a listener of their own.
func probeYAML(host, backend string) string {
	return gateYAML(host, backend) + "  probeBind: 127.0.0.1:0\n"
}

// startGateWithProbes runs gate with api.probeBind and returns it and the probe
// listener's base URL.
func startGateWithProbes(t *testing.T) (*running, string) {
	t.Helper()
	b := newFakeServer(t, 1, 20)
	var probes string
	g := startGateHook(t, probeYAML("a.example.com", b.addr), "s3cret", func(a *app) {
		if a.probeLn != nil {
			probes = "http://" + a.probeLn.Addr().String()
		}
	})
	if probes == "" {
		t.Fatal("api.probeBind bound no listener")
	}
	return g, probes
}

// probe is one kubelet-style probe: a fresh connection, no token, 1 s to answer.
func probe(url string) (int, error) {
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// With api.probeBind the probes have a port of their own: 64 idle connections
// sitting on the API's port cost them nothing, and the API keeps its token rules.
func TestServeProbeBindAnswersWhileTheAPIPortIsFull(t *testing.T) {
	g, probes := startGateWithProbes(t)
	api := strings.TrimPrefix(g.api, "http://")
	for range 64 {
		c, err := net.Dial("tcp", api)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		// A request that never ends: the connection holds its slot until the
		// server's header timeout.
		_, _ = c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
	}
	answered := 0
	for i := range 50 {
		path := []string{"/healthz", "/readyz"}[i%2]
		if code, err := probe(probes + path); err == nil && code == http.StatusOK {
			answered++
		}
	}
	if answered != 50 {
		t.Fatalf("%d of 50 probes answered on the probe port with 64 idle connections on the API's", answered)
	}
}

// The probe port serves the probes only, without a token; the API's port keeps
// every rule it had.
func TestServeProbeBindServesOnlyTheProbes(t *testing.T) {
	g, probes := startGateWithProbes(t)
	for _, tc := range []struct {
		base, path string
		want       int
	}{
		{probes, "/healthz", 200},
		{probes, "/readyz", 200},
		{probes, "/api/v1/backends", 404},
		{probes, "/metrics", 404},
		{g.api, "/healthz", 200},
		{g.api, "/api/v1/backends", 401},
		{g.api, "/metrics", 401},
	} {
		if code, err := probe(tc.base + tc.path); err != nil || code != tc.want {
			t.Errorf("GET %s%s without a token = %d %v, want %d", tc.base, tc.path, code, err, tc.want)
		}
	}
	if code, _ := g.get("/api/v1/backends"); code != 200 {
		t.Errorf("GET /api/v1/backends with the token = %d, want 200", code)
	}
}
