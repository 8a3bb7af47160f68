package docker

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/admin"
)

// claimLogins is how many players each claim case sends; every one must land
// on the rightful container.
const claimLogins = 20

// Regression (issue 30, host hijack, between containers): two containers of
// different owners labelled with one host were one balanced route, so any
// container could take a share of another's players by naming its host. The
// older keeps it now, whatever the names' order; the newcomer is refused with
// an ERROR, a metric and an entry in /api/v1/sources. An exact host beats an
// older container's wildcard.
func TestDockerFirstClaimantKeepsHostAgainstNewerContainer(t *testing.T) {
	e := enginetest.NeedDocker(t)
	domain := enginetest.Uniq("claims") + ".test"
	play, lobby, other := "play."+domain, "lobby."+domain, "other."+domain
	older := enginetest.Uniq("zzz-older") // the newcomer's name sorts first
	newer := enginetest.Uniq("aaa-newer")
	wide := enginetest.Uniq("wide")
	exact := enginetest.Uniq("exact")
	e.Run(t, enginetest.Container{Name: older, Labels: map[string]string{LabelHosts: play}})
	e.Run(t, enginetest.Container{Name: wide, Labels: map[string]string{LabelHosts: "*." + domain}})
	// Creation times have one-second steps: the newcomers must be later.
	created := time.Now().Unix()
	mctest.WaitFor(t, "a later creation second", 3*time.Second, func() bool { return time.Now().Unix() > created })
	e.Run(t, enginetest.Container{Name: newer, Labels: map[string]string{"mc-router.host": play}})
	e.Run(t, enginetest.Container{Name: exact, Labels: map[string]string{LabelHosts: lobby}})

	p := startProxy(t, e.Host)
	api := p.serveAdmin(t)
	mctest.WaitFor(t, "the newcomer refused", 10*time.Second, func() bool { return p.logs.Count("host claim refused") == 1 })
	for _, tc := range []struct{ pattern, host, right string }{{play, play, older}, {lobby, lobby, exact}, {"*." + domain, other, wide}} {
		p.waitReady(t, tc.pattern, tc.host, false)
		for range claimLogins {
			if b := p.servedBy(t, tc.host); b.Origin != "docker "+tc.right {
				t.Fatalf("%s served by %s, want every login on %s", tc.host, b.Origin, tc.right)
			}
		}
	}
	line := p.logs.Find("host claim refused")[0]
	if !strings.Contains(line, `"origin"="docker `+newer+`"`) || !strings.Contains(line, `"error"="claimed first by docker `+older+`"`) {
		t.Fatalf("refusal line = %s", line)
	}
	var sources []admin.RouteSource
	if err := json.Unmarshal([]byte(api.get(t, admin.PathSources)), &sources); err != nil {
		t.Fatal(err)
	}
	want := admin.RefusedClaim{Origin: "docker " + newer, Host: play, Reason: "claimed first by docker " + older}
	if len(sources) != 1 || !slices.Equal(sources[0].RefusedClaims, []admin.RefusedClaim{want}) {
		t.Fatalf("%s = %+v, want the one refusal %+v", admin.PathSources, sources, want)
	}
	if want := `gate_lite_discovery_claims_refused_total{source="docker"} 1`; !strings.Contains(api.get(t, admin.PathMetrics), want) {
		t.Fatalf("%s lacks %s", admin.PathMetrics, want)
	}
	t.Logf("figure: %d of %d logins to %s on the older container, %d of %d to the exact %s beside an older wildcard",
		claimLogins, claimLogins, play, claimLogins, claimLogins, lobby)
}

// adminAPI is the proxy's admin API on a loopback port.
type adminAPI struct{ url string }

// serveAdmin serves the proxy's admin API, its sources and the merger's
// metrics, until the test ends.
func (p *proxy) serveAdmin(t *testing.T) adminAPI {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(p.merger)
	srv := admin.New(admin.Options{Source: p.Lite, Sources: p.merger.Sources, Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mctest.Run(t, "admin API", func(ctx context.Context) error { return srv.Serve(ctx, ln) })
	return adminAPI{url: "http://" + ln.Addr().String()}
}

func (a adminAPI) get(t *testing.T, path string) string {
	t.Helper()
	// No keep-alive: an idle connection would outlive the test (goleak).
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(a.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s, %v", path, resp.StatusCode, b, err)
	}
	return string(b)
}
