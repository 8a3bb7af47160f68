package wake_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/execwake"
	"go.minekube.com/gate/pkg/lite/wake/webhook"
)

// secrets are what issue 30's item 8 found in /metrics, the INFO lines and
// /api/v1/wake: a webhook URL's token and userinfo, an exec argument's
// password, and a webhook's error reply (its reason phrase and body).
var secrets = []string{"tok3n", "ops:", "hunter2", "pa55", "--password", "/hook", "leaked-body", "leaked-reason"}

// leakyHook answers every POST 403 with a reason phrase and a body of its
// own words, which the proxy must not repeat.
func leakyHook(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		writeRaw(buf, "HTTP/1.1 403 leaked-reason\r\nContent-Length: 11\r\nConnection: close\r\n\r\nleaked-body")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeRaw(w *bufio.ReadWriter, s string) {
	_, _ = w.WriteString(s)
	_ = w.Flush()
}

// failingTargets are a webhook whose URL holds a token and userinfo (twice,
// on one host: their names must differ) and a command with a password
// argument that exits 3.
func failingTargets(t *testing.T) []wake.Target {
	host := strings.TrimPrefix(leakyHook(t).URL, "http://")
	var out []wake.Target
	for _, path := range []string{"/hook?token=tok3n", "/hook/2?token=tok3n2"} {
		wh, err := webhook.New(wake.Spec{Kind: wake.KindWebhook, URL: "http://ops:hunter2@" + host + path, Timeout: 5 * time.Second}, webhook.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(wh.Close)
		out = append(out, wh)
	}
	ex, err := execwake.New(wake.Spec{Kind: wake.KindExec, Command: []string{"sh", "-c", "exit 3", "--password=pa55"}}, execwake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, ex)
}

func notReady(context.Context, wake.Result) (string, bool) { return "", false }

// TestFailingTargetsShowNoSecret pins issue 30's item 8: failed wakes of
// targets with secrets in their keys, and the /metrics scrape, log lines,
// States and errors that follow name them without those secrets.
func TestFailingTargetsShowNoSecret(t *testing.T) {
	logs := &mctest.Logs{}
	c := wake.NewCoordinator(wake.Options{Log: logs.Logger(1)})
	defer c.Close()
	targets := failingTargets(t)
	var bs []wake.Binding
	for _, tg := range targets {
		bs = append(bs, wake.Binding{Target: tg})
	}
	c.Bind(bs)
	var errs []string
	for _, tg := range targets {
		for range 2 { // the second is turned away by the backoff
			_, err := c.Wake(context.Background(), tg.Key(), wake.Request{ServerAddress: "mc.example.com"}, notReady)
			if err == nil {
				t.Fatalf("%s woke, want a failure", wake.Name(tg.Key()))
			}
			errs = append(errs, err.Error())
		}
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c.Collector())
	mfs, err := reg.Gather() // fails if two targets shared a series
	if err != nil {
		t.Fatal(err)
	}
	var scrape []string
	for _, mf := range mfs {
		scrape = append(scrape, mf.String())
	}
	states, _ := json.Marshal(c.States())
	seen := map[string]string{"metrics": strings.Join(scrape, "\n"), "logs": strings.Join(logs.Find(""), "\n"),
		"states": string(states), "errors": strings.Join(errs, "\n")}
	for where, text := range seen {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s show %q:\n%s", where, s, text)
			}
		}
	}
	assertNamed(t, c.States(), errs)
}

// assertNamed checks the safe parts that must remain: names told apart, the
// status code, the exit status and the backoff.
func assertNamed(t *testing.T, ss []wake.State, errs []string) {
	t.Helper()
	if len(ss) != 3 || ss[0].Key != "exec sh" || !strings.HasPrefix(ss[1].Key, "webhook http://127.0.0.1:") || ss[2].Key != ss[1].Key+" #2" {
		t.Fatalf("states %+v, want exec sh and two webhooks told apart", ss)
	}
	for _, s := range ss {
		if s.RetryAt.IsZero() || s.Phase != wake.PhaseAsleep {
			t.Errorf("state %+v, want asleep with a retry time", s)
		}
	}
	if !strings.Contains(ss[1].Error, "403 Forbidden") || !strings.Contains(ss[0].Error, "exit status 3") {
		t.Errorf("errors %q and %q, want the status code and the exit status", ss[1].Error, ss[0].Error)
	}
	if !strings.Contains(errs[1], wake.ErrBackoff.Error()) {
		t.Errorf("second wake: %s, want turned away by the backoff", errs[1])
	}
}
