package engines_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/wake/engines"
)

// The tests of this file run issue 30's trust boundary through the whole
// proxy as `gate` wires it: one discovery source on a real engine feeds a
// Merger, and wake targets are the real engines (Kubernetes, Docker, exec,
// webhook). A tenant's object names a command, a webhook, a workload or a
// container it does not own; each is counted where it would land.

const protocol = 767

// trustProxy is a real proxy fed by one discovery source.
type trustProxy struct {
	*lite.Lite
	m    *discovery.Merger
	addr string
	logs *lines
}

// newSource builds the discovery source of cfg under test.
type newSource func(cfg *config.Config, log logr.Logger) (discovery.Source, error)

func startTrustProxy(t *testing.T, yaml string, source newSource) *trustProxy {
	t.Helper()
	cfg, _, err := config.ParseEnv([]byte(yaml), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lines{}
	log := funcr.New(logs.add, funcr.Options{})
	e := engines.New(cfg)
	t.Cleanup(e.Close) // after the proxy, registered later, has stopped
	l, err := lite.New(cfg, lite.Options{Seed: 1, Log: log, WakeTargets: e.Target})
	if err != nil {
		t.Fatal(err)
	}
	src, err := source(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	m, addr := enginetest.ServeDiscovered(t, cfg, l, src, log)
	return &trustProxy{Lite: l, m: m, addr: addr, logs: logs}
}

// serves reports whether a route of host is in force.
func (p *trustProxy) serves(host string) bool {
	for _, r := range p.Config().Lite.Routes {
		if slices.Contains(r.Host, host) {
			return true
		}
	}
	return false
}

// rejected is the reason the proxy's sources list for origin, "" if none.
func (p *trustProxy) rejected(origin string) string {
	for _, s := range p.m.Sources() {
		for _, r := range s.Rejected {
			if r.Origin == origin {
				return r.Err
			}
		}
	}
	return ""
}

// send sends a login for host and leaves the session open until the test
// ends.
func (p *trustProxy) send(t *testing.T, host string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := c.Write(mctest.LoginPreamble(protocol, host, "tenant")); err != nil {
		t.Fatal(err)
	}
	return c
}

// login sends a login for host and waits until the proxy ends it: a refused
// route is an unknown host, a held login is told it could not wake.
func (p *trustProxy) login(t *testing.T, host string) {
	t.Helper()
	if _, err := io.Copy(io.Discard, p.send(t, host)); err != nil {
		t.Fatalf("login to %s: not ended by the proxy: %v", host, err)
	}
}

// refusal checks that origin's wake was refused as a bad value is: one log
// line naming the object and the key, and an entry in the sources' view.
func (p *trustProxy) refusal(t *testing.T, origin, key string) {
	t.Helper()
	if err := p.rejected(origin); !strings.Contains(err, origin+": "+key+": ") {
		t.Errorf("sources list %s as %q, want a refusal of %s", origin, err, key)
	}
	if n := p.logs.count(`"origin"="` + origin + `"`); n != 1 {
		t.Errorf("%d log lines name %s, want 1", n, origin)
	}
}

// lines keeps the proxy's log lines.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) add(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, prefix+" "+args)
}

func (l *lines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.all {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// trustYAML is the proxy's config: source is its discovery line, and the
// file's one hook, "granted", touches a file (%q) for the objects its grant
// line names.
const trustYAML = `
config:
  lite:
    enabled: true
    shutdownGrace: 0s
    discovery:
      %s
    wake:
      hooks:
        granted:
          wake: {exec: [touch, %q]}
          %s
`

// bait is where each thing a tenant's object may name would land: commands
// that touch files, a loopback HTTP server that counts requests, and the
// file the granted hook touches.
type bait struct {
	hookFile  string
	execFiles []string
	url       string
	requests  atomic.Int64
}

func newBait(t *testing.T) *bait {
	t.Helper()
	dir := t.TempDir()
	b := &bait{hookFile: filepath.Join(dir, "hook")}
	for _, f := range []string{"exec-wake", "exec-sleep", "exec-text"} {
		b.execFiles = append(b.execFiles, filepath.Join(dir, f))
	}
	s := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { b.requests.Add(1) }))
	t.Cleanup(s.Close)
	b.url = s.URL + "/wake"
	return b
}

// wakes are the values a tenant writes, by what they ask for: foreign names
// a server the tenant does not own.
func (b *bait) wakes(foreign string) map[string]string {
	return map[string]string{
		"exec":      fmt.Sprintf("{exec: [touch, %q], sleep: [touch, %q]}", b.execFiles[0], b.execFiles[1]),
		"exec-text": "exec:touch " + b.execFiles[2],
		"webhook":   b.url,
		"foreign":   foreign,
		"stolen":    "hook/granted",
	}
}

// commands counts the tenant's commands that ran.
func (b *bait) commands() int { return touched(b.execFiles...) }

// touched counts the files of paths that exist.
func touched(paths ...string) int {
	n := 0
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			n++
		}
	}
	return n
}
