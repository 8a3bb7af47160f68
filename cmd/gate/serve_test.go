package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// syncBuffer is a log sink written by many goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// running is a gate process (in-process) serving a config file.
type running struct {
	t      *testing.T
	path   string
	proxy  string // player address
	api    string // admin base URL
	token  string
	log    *syncBuffer
	cancel func()
	done   chan int
}

// startGate writes yaml to a config file and runs serve on it until the test ends.
func startGate(t *testing.T, yaml string, token string) *running {
	t.Helper()
	return startGateHook(t, yaml, token, nil)
}

// startGateHook is startGate that also hands the started app to hook (when not nil),
// for listeners the running type does not name.
func startGateHook(t *testing.T, yaml string, token string, hook func(*app)) *running {
	t.Helper()
	dir := t.TempDir()
	r := &running{t: t, path: filepath.Join(dir, "config.yml"), token: token, log: &syncBuffer{}, done: make(chan int, 1)}
	writeFile(t, r.path, yaml)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	up := make(chan *app, 1)
	go func() {
		r.done <- serve(ctx, []string{"--config", r.path, "--log-format", "json"}, r.log, func(a *app) { up <- a })
	}()
	select {
	case a := <-up:
		r.proxy = a.ln.Addr().String()
		if a.apiLn != nil {
			r.api = "http://" + a.apiLn.Addr().String()
		}
		if hook != nil {
			hook(a)
		}
		// The hook runs once the listeners are bound, a moment before Serve marks the
		// proxy ready; tests start from a serving proxy.
		waitReady(t, a.proxy)
	case code := <-r.done:
		cancel()
		t.Fatalf("gate exited with %d before listening:\n%s", code, r.log.String())
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("gate did not start")
	}
	t.Cleanup(func() {
		if code := r.stop(); code != 0 {
			t.Errorf("gate exited with %d:\n%s", code, r.log.String())
		}
	})
	return r
}

// waitReady waits until p serves (listener bound, config loaded).
func waitReady(t *testing.T, p interface{ Ready() bool }) {
	t.Helper()
	mctest.WaitFor(t, "gate to become ready", 10*time.Second, p.Ready)
}

// stop cancels serve and returns its exit code.
func (r *running) stop() int {
	r.cancel()
	select {
	case code := <-r.done:
		return code
	case <-time.After(15 * time.Second):
		r.t.Error("gate did not stop")
		return -1
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// get fetches an admin path with the token.
func (r *running) get(path string) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest("GET", r.api+path, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// metric returns the value of one exposition line (name with labels in the
// exposition's order), or "" when absent.
func (r *running) metric(series string) string {
	_, body := r.get("/metrics")
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			return v
		}
	}
	return ""
}

// waitMetric polls /metrics until series has value want.
func (r *running) waitMetric(series, want string) {
	r.t.Helper()
	waitUntil(r.t, fmt.Sprintf("%s = %s", series, want), func() bool { return r.metric(series) == want })
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	mctest.WaitFor(t, what, 10*time.Second, cond)
}

func gateYAML(host, backend string) string {
	return fmt.Sprintf(`config:
  bind: 127.0.0.1:0
  lite:
    enabled: true
    shutdownGrace: 0s
    routes:
      - host: %s
        backend: %s
        fallback:
          motd: down
api:
  enabled: true
  bind: 127.0.0.1:0
  token: s3cret
`, host, backend)
}

func TestServeMetricsAfterRealLogins(t *testing.T) {
	b := newFakeServer(t, 7, 100)
	g := startGate(t, gateYAML("a.example.com", b.addr), "s3cret")
	sent := 0
	for _, name := range []string{"alice", "bob", "carol"} {
		p := joinAs(t, g.proxy, "a.example.com", name)
		if err := p.echoed(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sent += len(p.sent)
		_ = p.c.Close()
	}
	if got := ping(t, g.proxy, "a.example.com"); !strings.Contains(got, `"online":7`) {
		t.Fatalf("status through the proxy = %s", got)
	}
	series := func(name string) string {
		return fmt.Sprintf(`%s{backend=%q,route="a.example.com"}`, name, b.addr)
	}
	g.waitMetric(series("gate_lite_sessions_started_total"), "3")
	g.waitMetric(`gate_lite_sessions_ended_total{backend="`+b.addr+`",reason="client-closed",route="a.example.com"}`, "3")
	g.waitMetric(series("gate_lite_sessions_active"), "0")
	g.waitMetric(`gate_lite_relayed_bytes_total{direction="up",route="a.example.com"}`, fmt.Sprint(sent))
	g.waitMetric(`gate_lite_relayed_bytes_total{direction="down",route="a.example.com"}`, fmt.Sprint(sent))
	g.waitMetric(`gate_lite_backend_dials_total{backend="`+b.addr+`",result="ok",route="a.example.com"}`, "3")
	g.waitMetric(`gate_lite_status_requests_total{route="a.example.com",source="backend"}`, "1")
	g.waitMetric(series("gate_lite_backend_players_online"), "7")
	g.waitMetric(`gate_lite_backend_health{backend="`+b.addr+`",route="a.example.com",state="healthy"}`, "1")
	g.waitMetric(series("gate_lite_backend_dial_duration_seconds_count"), "3")
	g.waitMetric("gate_lite_ready", "1")
	g.waitMetric("gate_lite_connections_accepted_total", "4")

	// One info line per session end with the fields an operator greps for.
	var ended int
	for _, l := range strings.Split(g.log.String(), "\n") {
		if !strings.Contains(l, `"msg":"session ended"`) {
			continue
		}
		ended++
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"client", "vhost", "route", "backend", "duration", "bytesUp", "bytesDown"} {
			if _, ok := m[k]; !ok {
				t.Errorf("session ended line lacks %q: %s", k, l)
			}
		}
		if m["level"] != "INFO" {
			t.Errorf("session ended at %v, want INFO", m["level"])
		}
	}
	if ended != 3 {
		t.Fatalf("%d session ended lines, want 3:\n%s", ended, g.log.String())
	}
}

func TestServeAdminAPI(t *testing.T) {
	b := newFakeServer(t, 1, 20)
	g := startGate(t, gateYAML("a.example.com", b.addr), "s3cret")
	for _, tc := range []struct {
		path, token string
		want        int
	}{
		{"/healthz", "", 200},
		{"/readyz", "", 200},
		{"/api/v1/backends", "", 401},
		{"/metrics", "", 401},
		{"/api/v1/backends", "s3cret", 200},
	} {
		g.token = tc.token
		if code, body := g.get(tc.path); code != tc.want {
			t.Errorf("GET %s (token %q) = %d %s, want %d", tc.path, tc.token, code, body, tc.want)
		}
	}
	checkStatusTables(t, g, b.addr)
}

// checkStatusTables has alice join and reads `gate lite status`: her live session,
// then the backends, with the token from the flag or from the config file.
func checkStatusTables(t *testing.T, g *running, backend string) {
	t.Helper()
	g.token = "s3cret"
	p := joinAs(t, g.proxy, "a.example.com", "alice")
	if err := p.echoed(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "one active session in /api/v1/backends", func() bool {
		_, body := g.get("/api/v1/backends")
		return strings.Contains(body, `"active": 1`)
	})

	var out, errOut bytes.Buffer
	code := run([]string{"lite", "status", "--api", g.api, "--token", "s3cret"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("gate lite status = %d: %s", code, errOut.String())
	}
	// The live session with its player (issue 33), then the backends.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "PLAYER") || !strings.HasPrefix(lines[1], "alice ") {
		t.Fatalf("tables:\n%s", out.String())
	}
	lines = lines[3:]
	if !strings.HasPrefix(lines[0], "ROUTE") {
		t.Fatalf("table:\n%s", out.String())
	}
	fields := strings.Fields(lines[1])
	want := []string{"a.example.com", backend, g.path + ":7", "healthy", "1"}
	if len(fields) < 5 || strings.Join(fields[:5], " ") != strings.Join(want, " ") {
		t.Fatalf("row %q, want it to start with %q", lines[1], want)
	}
	if !strings.Contains(lines[1], "yes       eligible: healthy") {
		t.Fatalf("row %q lacks eligibility", lines[1])
	}
	_ = p.c.Close()

	// The same table with the address and token taken from the config file.
	out.Reset()
	if code := run([]string{"lite", "status", "--config", g.path, "--api", g.api}, &out, &errOut); code != 0 {
		t.Fatalf("gate lite status --config = %d: %s", code, errOut.String())
	}
	if code := run([]string{"lite", "status", "--api", g.api, "--token", "wrong"}, &out, &errOut); code != 1 {
		t.Fatalf("wrong token: exit %d, want 1", code)
	}
}

func TestServeLiveReload(t *testing.T) {
	b1 := newFakeServer(t, 1, 20)
	b2 := newFakeServer(t, 2, 20)
	g := startGate(t, gateYAML("a.example.com", b1.addr), "s3cret")

	live := joinAs(t, g.proxy, "a.example.com", "alice")
	if err := live.echoed(); err != nil {
		t.Fatal(err)
	}

	// A broken file is rejected; the running routes stay.
	writeFile(t, g.path, strings.Replace(gateYAML("a.example.com", b1.addr), "backend:", "backends:", 1))
	g.waitMetric(`gate_lite_config_reloads_total{result="error"}`, "1")
	if !strings.Contains(g.log.String(), "config reload rejected") {
		t.Fatalf("no rejection logged:\n%s", g.log.String())
	}
	p := joinAs(t, g.proxy, "a.example.com", "bob")
	if err := p.echoed(); err != nil {
		t.Fatalf("after a rejected reload: %v", err)
	}
	_ = p.c.Close()

	// A valid file moves the route; new players follow it at once.
	writeFile(t, g.path, gateYAML("a.example.com", b2.addr))
	g.waitMetric(`gate_lite_config_reloads_total{result="ok"}`, "1")
	p = joinAs(t, g.proxy, "a.example.com", "carol")
	if err := p.echoed(); err != nil {
		t.Fatalf("after the reload: %v", err)
	}
	_ = p.c.Close()
	if b2.Logins() != 1 {
		t.Fatalf("new backend got %d logins, want 1", b2.Logins())
	}
	// The live session was never touched.
	if err := live.roundTrip("still here"); err != nil {
		t.Fatalf("live session after two reloads: %v", err)
	}
	_ = live.c.Close()
}
