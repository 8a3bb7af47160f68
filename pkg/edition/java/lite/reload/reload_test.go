package reload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/logging"
)

// cfgYAML is a valid config whose only route sends host to backend.
func cfgYAML(bind, host, backend string) string {
	return fmt.Sprintf(`config:
  bind: %s
  lite:
    enabled: true
    routes:
      - host: %s
        backend: %s
`, bind, host, backend)
}

const invalidYAML = `config:
  lite:
    enabled: true
    routes:
      - host: a.example.com
        backend: 127.0.0.1:1
        strategy: round_robin
`

// harness runs a Reloader over a real file and records what reaches Apply.
type harness struct {
	t    *testing.T
	path string
	r    *Reloader

	mu      sync.Mutex
	applied []string // host of the first route of each applied config
	results []Result
	logs    []string
	failApp error
}

func newHarness(t *testing.T, path string) *harness {
	t.Helper()
	h := &harness{t: t, path: path}
	log := funcr.New(func(prefix, args string) {
		h.mu.Lock()
		h.logs = append(h.logs, args)
		h.mu.Unlock()
	}, funcr.Options{Verbosity: 1})
	h.r = New(Options{
		Path:     path,
		Log:      log,
		Debounce: 20 * time.Millisecond,
		SIGHUP:   true,
		Apply: func(c *config.Config) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.failApp != nil {
				return h.failApp
			}
			h.applied = append(h.applied, c.Lite.Routes[0].Host[0])
			return nil
		},
		OnResult: func(res Result) {
			h.mu.Lock()
			h.results = append(h.results, res)
			h.mu.Unlock()
		},
	})
	if _, _, err := h.r.Load(); err != nil {
		t.Fatal(err)
	}
	return h
}

// run starts Run and waits until it watches; the test's end stops it.
func (h *harness) run() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.r.Run(ctx) }()
	h.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				h.t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			h.t.Error("Run did not return")
		}
	})
	select {
	case <-h.r.Watching():
	case err := <-done:
		h.t.Fatalf("Run returned early: %v", err)
	case <-time.After(5 * time.Second):
		h.t.Fatal("Run did not start watching")
	}
}

// waitApplied waits until the applied hosts equal want.
func (h *harness) waitApplied(want ...string) {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("applied %v", want), func() bool { return slices.Equal(h.applied, want) })
}

func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		h.mu.Lock()
		ok := cond()
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			h.mu.Lock()
			defer h.mu.Unlock()
			h.t.Fatalf("timed out waiting for %s; applied %v, logs:\n%s", what, h.applied, strings.Join(h.logs, "\n"))
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidFileKeepsRunningConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yml")
	write(t, path, cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1"))
	h := newHarness(t, path)
	h.run()

	write(t, path, invalidYAML)
	// os.WriteFile truncates before it writes, so a reload (the watch's first one, or
	// a slow debounce) may read the file empty first: that is rejected too, and the
	// next event brings the whole file. Every result must be a rejection, and one of
	// them the strategy error with file and line.
	strategyErr := func(res Result) bool {
		var list config.ErrorList
		return errors.As(res.Err, &list) && len(list) == 1 &&
			strings.Contains(list[0].Error(), `config.yml:7: config.lite.routes[0].strategy`)
	}
	h.waitFor("the rejected reload", func() bool { return slices.ContainsFunc(h.results, strategyErr) })
	h.mu.Lock()
	for _, res := range h.results {
		if res.Err == nil {
			t.Errorf("a reload of the invalid file was applied: %+v", res)
		}
	}
	h.mu.Unlock()
	if got := h.r.Current().Lite.Routes[0].Host[0]; got != "a.example.com" {
		t.Fatalf("running config changed to %s after an invalid file", got)
	}
	h.waitFor("the error logged with its line", func() bool {
		return slices.ContainsFunc(h.logs, func(l string) bool {
			return strings.Contains(l, "config reload rejected") && strings.Contains(l, "config.yml:7:")
		})
	})

	write(t, path, cfgYAML("localhost:25565", "b.example.com", "127.0.0.1:2"))
	h.waitApplied("b.example.com")
}

// reloadCase is a file written over the running one (a.example.com) and
// what one Reload of it must do.
type reloadCase struct {
	name        string
	next        string
	force       bool
	failApply   error
	wantApplied []string
	wantRestart []string
	wantErr     string
	unchanged   bool
}

var reloadCases = []reloadCase{
	{
		name:      "unchanged content does nothing",
		next:      cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1"),
		unchanged: true,
	},
	{
		name:        "SIGHUP reloads unchanged content",
		next:        cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1"),
		force:       true,
		wantApplied: []string{"a.example.com"},
	},
	{
		name:        "a new bind is logged as needing a restart, the rest applies",
		next:        cfgYAML("localhost:25577", "b.example.com", "127.0.0.1:1"),
		wantApplied: []string{"b.example.com"},
		wantRestart: []string{"config.bind (running on localhost:25565, file says localhost:25577)"},
	},
	{
		name: "enabling the API needs a restart",
		next: cfgYAML("localhost:25565", "b.example.com", "127.0.0.1:1") +
			"api:\n  enabled: true\n",
		wantApplied: []string{"b.example.com"},
		wantRestart: []string{"api.enabled (running false, file says true)"},
	},
	{
		name:      "an apply error keeps the running config",
		next:      cfgYAML("localhost:25565", "b.example.com", "127.0.0.1:1"),
		failApply: errors.New("compile config: boom"),
		wantErr:   "apply config: compile config: boom",
	},
	{
		name:    "an invalid file keeps the running config",
		next:    invalidYAML,
		wantErr: `unknown "round_robin"`,
	},
}

func TestReload(t *testing.T) {
	for _, tt := range reloadCases {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yml")
			write(t, path, cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1"))
			h := newHarness(t, path)
			h.failApp = tt.failApply
			write(t, path, tt.next)
			res := h.r.Reload(tt.force)
			checkReload(t, h, tt, res)
			// The same rejected content is not reported again on the next event.
			if tt.wantErr != "" {
				if again := h.r.Reload(false); !again.Unchanged {
					t.Fatalf("second reload of the same rejected file: %+v", again)
				}
			}
		})
	}
}

// checkReload compares one Reload's result, what reached Apply and OnResult,
// and the config in force with tt.
func checkReload(t *testing.T, h *harness, tt reloadCase, res Result) {
	t.Helper()
	if res.Unchanged != tt.unchanged {
		t.Fatalf("Unchanged = %v, want %v", res.Unchanged, tt.unchanged)
	}
	if !slices.Equal(h.applied, tt.wantApplied) {
		t.Fatalf("applied %v, want %v", h.applied, tt.wantApplied)
	}
	if !slices.Equal(res.RestartNeeded, tt.wantRestart) {
		t.Fatalf("restart needed %q, want %q", res.RestartNeeded, tt.wantRestart)
	}
	switch {
	case tt.wantErr == "" && res.Err != nil:
		t.Fatalf("err = %v", res.Err)
	case tt.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr)):
		t.Fatalf("err = %v, want it to contain %q", res.Err, tt.wantErr)
	}
	wantHost := "a.example.com"
	if len(tt.wantApplied) > 0 {
		wantHost = tt.wantApplied[len(tt.wantApplied)-1]
	}
	if got := h.r.Current().Lite.Routes[0].Host[0]; got != wantHost {
		t.Fatalf("Current() = %s, want %s", got, wantHost)
	}
	wantResults := 1
	if tt.unchanged {
		wantResults = 0
	}
	if len(h.results) != wantResults {
		t.Fatalf("OnResult called %d times, want %d", len(h.results), wantResults)
	}
}

// Regression: config warnings were logged at INFO, where an operator
// filtering for problems does not look.
func TestReloadLogsConfigWarningsAtWarn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yml")
	write(t, path, cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1"))
	var buf bytes.Buffer
	log, err := logging.New(&buf, logging.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := New(Options{Path: path, Apply: func(*config.Config) error { return nil }, Log: log})
	if _, _, err := r.Load(); err != nil {
		t.Fatal(err)
	}
	write(t, path, cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1")+"        realIP: true\n")
	if res := r.Reload(false); res.Err != nil || len(res.Warnings) != 1 {
		t.Fatalf("Reload = %+v, want one warning", res)
	}
	want := `level=WARN msg="config warning" warning="` + path + `:8: config.lite.routes[0].realIP: deprecated: use tcpShieldRealIP"`
	if !strings.Contains(buf.String(), want) {
		t.Fatalf("log:\n%s\nwant a line with %s", buf.String(), want)
	}
}

func TestReloadBeforeLoad(t *testing.T) {
	r := New(Options{Path: "nope.yml", Apply: func(*config.Config) error { return nil }, Log: logr.Discard()})
	if res := r.Reload(true); !errors.Is(res.Err, ErrNotLoaded) {
		t.Fatalf("Reload before Load: %v", res.Err)
	}
	if _, _, err := r.Load(); err == nil || !strings.Contains(err.Error(), "load config") {
		t.Fatalf("Load of a missing file: %v", err)
	}
}
