package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/admin"
)

// chromiumPath is Debian's chromium, which scripts/test.sh installs.
const chromiumPath = "/usr/bin/chromium"

// browser is testdata/page.js driving the admin page in headless chromium.
type browser struct {
	t     *testing.T
	in    io.WriteCloser
	cmd   *exec.Cmd
	lines chan string
}

// pageResult is one line page.js prints.
type pageResult struct {
	Step         string   `json:"step"`
	Error        string   `json:"error"`
	PageError    string   `json:"pageError"`
	Rows         []string `json:"rows"`
	Ms           int64    `json:"ms"`
	SameDocument bool     `json:"sameDocument"`
}

func startBrowser(t *testing.T, url, token string) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skip("needs Debian's chromium (" + chromiumPath + "): run scripts/test.sh")
	}
	modules := mctest.NodeModules(t)
	if _, err := os.Stat(filepath.Join(modules, "playwright-core", "package.json")); err != nil {
		t.Skip("needs npm's playwright-core in GATETEST_NODE_MODULES: run scripts/test.sh")
	}
	cmd := exec.Command("node", filepath.Join("testdata", "page.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "PAGE_URL="+url, "PAGE_TOKEN="+token, "PAGE_PROFILE="+t.TempDir())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, in: in, cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			b.lines <- sc.Text()
		}
		close(b.lines)
	}()
	t.Cleanup(func() {
		_, _ = io.WriteString(in, "quit\n")
		_ = in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill() // by its own pid
			<-done
		}
	})
	b.expect("logged-in")
	return b
}

// do sends a step and returns its result (page errors are reported, then skipped).
func (b *browser) do(step string) pageResult {
	b.t.Helper()
	if step != "" {
		if _, err := io.WriteString(b.in, step+"\n"); err != nil {
			b.t.Fatal(err)
		}
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-b.lines:
			if !ok {
				b.t.Fatalf("page.js ended before %q", step)
			}
			var r pageResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				b.t.Fatalf("page.js printed %q", line)
			}
			if r.PageError != "" {
				b.t.Errorf("the page threw: %s", r.PageError)
				continue
			}
			if r.Error != "" {
				b.t.Fatalf("page.js %s: %s", step, r.Error)
			}
			return r
		case <-timeout:
			b.t.Fatalf("page.js: no answer to %q in 30s", step)
		}
	}
}

func (b *browser) expect(step string) pageResult {
	b.t.Helper()
	r := b.do("")
	if r.Step != step {
		b.t.Fatalf("page.js: %+v, want step %s", r, step)
	}
	return r
}

func pageYAML(backends []string, state string) string {
	return fmt.Sprintf(`config:
  bind: 127.0.0.1:0
  lite:
    enabled: true
    shutdownGrace: 0s
    operator: {stateFile: %s}
    routes:
      - host: play.example.com
        backend: [%s]
        strategy: round-robin
        healthCheck: {enabled: true, interval: 200ms, timeout: 150ms, rise: 1, fall: 1}
api:
  enabled: true
  bind: 127.0.0.1:0
  token: s3cret
`, state, strings.Join(backends, ", "))
}

// The admin page in a real headless Chromium: it lists the backends, shows a
// killed one down without a reload (the event stream), and its drain button drains.
func TestAdminPageInHeadlessChromium(t *testing.T) {
	const n = 3
	var bs []*fakeServer
	var addrs []string
	for range n {
		b := newFakeServer(t, 1, 20)
		bs, addrs = append(bs, b), append(addrs, b.addr)
	}
	g := startGate(t, pageYAML(addrs, filepath.Join(t.TempDir(), "op.json")), "s3cret")
	until(t, "every backend healthy", 10*time.Second, func() bool { return healthyBackends(t, g) == n })
	br := startBrowser(t, g.api+"/", "s3cret")
	if r := br.do(fmt.Sprintf("list %d", n)); len(r.Rows) != n {
		t.Fatalf("the page lists %v, want %d backends", r.Rows, n)
	}
	killed := time.Now()
	bs[1].Close()
	r := br.do("down " + addrs[1])
	took := time.Since(killed)
	t.Logf("figure: a killed backend shown down on the page %v after the kill (page waited %d ms), same document: %v", took.Round(time.Millisecond), r.Ms, r.SameDocument)
	if took > 2*time.Second || !r.SameDocument {
		t.Fatalf("killed backend shown down after %v (same document %v), want within 2s without a reload", took, r.SameDocument)
	}
	br.do("drain " + addrs[0])
	_, body := g.get(admin.PathBackends)
	var rows []admin.Backend
	if err := json.Unmarshal([]byte(body), &rows); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Backend == addrs[0] && row.Reason != "drained" {
			t.Fatalf("after pressing drain the API shows %+v", row)
		}
	}
	before := bs[0].Logins()
	for range 10 {
		p := joinAs(t, g.proxy, "play.example.com", "alice")
		if err := p.echoed(); err != nil {
			t.Fatal(err)
		}
		_ = p.c.Close()
	}
	if got := bs[0].Logins() - before; got != 0 {
		t.Fatalf("the drained backend got %d of 10 logins", got)
	}
}

// healthyBackends counts the backends the API shows healthy.
func healthyBackends(t *testing.T, g *running) int {
	t.Helper()
	_, body := g.get(admin.PathBackends)
	var rows []admin.Backend
	if err := json.Unmarshal([]byte(body), &rows); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.State == "healthy" {
			n++
		}
	}
	return n
}
