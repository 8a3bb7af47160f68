package discovery_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/metrics"
)

// maxLine bounds every log line and /metrics line in TestOversizedObjects...:
// a line carries a route's identity, never its host list or a setting's text.
const maxLine = 4 << 10

// hostsOf writes n host patterns for object name, each about width bytes.
func hostsOf(name string, n, width int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%05d%s.%s.test", i, strings.Repeat("x", max(width-len(name)-11, 0)), name)
	}
	return out
}

// One label of 50,000 hosts (900 KB) used to make /metrics 37 MB with 900 KB
// lines and cost a 900 KB log line per session. Objects over a size cap are
// now rejected with one line naming the object and the key, and a route at
// the caps is named in metrics and logs by a bounded identity.
func TestOversizedObjectsAreRejectedAndNothingLogsOrExportsTheirSize(t *testing.T) {
	fileBackend, b := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	met, logs := metrics.New(metrics.Options{NoProcess: true}), &mctest.Logs{}
	w := newWorldWith(t, strings.ReplaceAll(fileYAML, "{{file}}", fileBackend.Addr()), lite.Options{Observer: met, Log: logs.Logger(0)}, logs)
	met.WatchBackends(w.proxy)
	met.Registry().MustRegister(w.merger)
	srv := httptest.NewServer(met.Handler())
	t.Cleanup(srv.Close)

	object := func(name string, hosts []string, settings map[string]string) discovery.Route {
		return discovery.Route{Origin: "kubernetes games/" + name, Hosts: hosts, KeyPrefix: "gate.minekube.com/", Namespace: "games",
			Backends: []discovery.Backend{{Addr: b.Addr()}}, Settings: settings}
	}
	wide := hostsOf("wide", 256, 75) // at the cap: 19 KB of hosts
	set := []discovery.Route{
		object("huge", hostsOf("huge", 50_000, 18), nil),
		object("motd", []string{"motd.test"}, map[string]string{"fallback": "{motd: " + strings.Repeat("a", 256<<10) + "}"}),
		object("wide", wide, nil),
	}
	w.merger.Replace("kubernetes", set)
	set[2].Backends = append(set[2].Backends, discovery.Backend{Addr: b.Addr()}) // a change: the set is merged again
	w.merger.Replace("kubernetes", set)

	for _, host := range []string{wide[0], wide[255], wide[0]} {
		c := w.login(host)
		echo(t, c)
		_ = c.Conn.Close() // the session's line is written at its end
	}
	for _, host := range []string{"00001" + strings.Repeat("x", 2) + ".huge.test", "motd.test"} {
		if text := w.refused(host); !strings.Contains(text, "no server at this address") {
			t.Fatalf("%s: an oversized object's route served: %q", host, text)
		}
	}
	rejections := logs.Find("discovered route rejected")
	if len(rejections) != 2 || !strings.Contains(rejections[0], "kubernetes games/huge: host: 50000 host patterns (limit 256)") ||
		!strings.Contains(rejections[1], "kubernetes games/motd: gate.minekube.com/fallback: value of 262152 bytes (limit 64 KiB)") {
		t.Fatalf("rejection lines = %q", rejections)
	}
	mctest.WaitFor(t, "three session lines", 5*time.Second, func() bool { return len(logs.Find(`"route"="kubernetes/00000`)) >= 3 })
	t.Logf("a session line: %s", logs.Find(`"route"="kubernetes/00000`)[0])
	for _, line := range logs.Find("") {
		if len(line) > maxLine {
			t.Fatalf("a %d-byte log line: %.200s...", len(line), line)
		}
	}

	body := scrape(t, srv.URL)
	if len(body) >= 1<<20 || !strings.Contains(body, `gate_lite_sessions_started_total{backend="`+b.Addr()+`",route="kubernetes/00000`) {
		t.Fatalf("/metrics is %d bytes (want < 1 MiB) or lacks the wide route's sessions", len(body))
	}
	for line := range strings.Lines(body) {
		if len(line) > maxLine {
			t.Fatalf("a %d-byte /metrics line: %.200s...", len(line), line)
		}
	}
	t.Logf("/metrics: %d bytes; longest log line bounded by %d", len(body), maxLine)
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d, %v", resp.StatusCode, err)
	}
	return string(body)
}
