package docker

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeDaemon answers the Engine API on a unix socket: a container "mc"
// that runs already, and no other.
func fakeDaemon(t *testing.T) *Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/containers/mc/start":
			w.WriteHeader(http.StatusNotModified)
		case r.Method == http.MethodPost && r.URL.Path == "/containers/mc/stop" && r.URL.Query().Get("t") == "2":
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/containers/mc/json":
			io.WriteString(w, `{"State":{"Running":true,"Paused":true,"StartedAt":"2026-01-02T03:04:05Z"}}`)
		case r.URL.Path == "/containers/json" && r.URL.Query().Get("filters") == `{"status":["running"]}`:
			io.WriteString(w, `[{"Id":"abc","Names":["/mc"],"State":"running"}]`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"No such container: `+strings.TrimPrefix(r.URL.Path, "/containers/")+`"}`)
		}
	}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := Dial("unix://"+sock, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestClientCallsAndTheDaemonsAnswers(t *testing.T) {
	c := fakeDaemon(t)
	ctx := t.Context()
	if started, err := c.Start(ctx, "mc"); err != nil || started {
		t.Errorf("start of a running container: %v %v, want not started and no error", started, err)
	}
	if stopped, err := c.Stop(ctx, "mc", 1500*time.Millisecond); err != nil || !stopped {
		t.Errorf("stop with 1.5s of grace (2 whole seconds): %v %v", stopped, err)
	}
	st, err := c.Inspect(ctx, "mc")
	if err != nil || !st.Running || !st.Paused || st.StartedAt.Year() != 2026 {
		t.Errorf("inspect: %+v %v", st, err)
	}
	cs, err := c.List(ctx, false, Filters{"status": {"running"}})
	if err != nil || len(cs) != 1 || cs[0].ID != "abc" || cs[0].Names[0] != "/mc" {
		t.Errorf("list: %+v %v", cs, err)
	}
	_, err = c.Start(ctx, "gone")
	if !IsNotFound(err) || !strings.Contains(err.Error(), "404 Not Found: No such container: gone/start") {
		t.Errorf("start of a missing container: %v", err)
	}
}

func TestClientCallEndsWithTheCallersContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := Dial("tcp://"+ln.Addr().String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Inspect(ctx, "mc"); err == nil || !strings.Contains(err.Error(), "docker GET /containers/mc/json") {
		t.Fatalf("inspect against a silent daemon: %v", err)
	}
}
