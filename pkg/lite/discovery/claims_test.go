package discovery_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// loginsPerCase is how many players each precedence case sends; every one
// must land on the rightful backend.
const loginsPerCase = 20

// landings logs in n players to host and returns how many each backend got.
func (w *world) landings(host string, n int, backends ...*mctest.Backend) []int64 {
	w.t.Helper()
	before := make([]int64, len(backends))
	for i, b := range backends {
		before[i] = b.Logins()
	}
	for range n {
		w.login(host)
	}
	got := make([]int64, len(backends))
	for i, b := range backends {
		got[i] = b.Logins() - before[i]
	}
	return got
}

func service(ns, name string, created time.Time, host string, b *mctest.Backend) discovery.Route {
	return discovery.Route{Origin: "kubernetes " + ns + "/" + name, Hosts: []string{host}, KeyPrefix: "gate.minekube.com/",
		Backends: []discovery.Backend{{Addr: b.Addr()}}, Namespace: ns, Created: created}
}

const catchAllYAML = `
config:
  lite:
    enabled: true
    routes:
      - host: '*.wild.test'
        backend: {{wild}}
      - host: '*'
        backend: {{any}}
    discovery:
      kubernetes: {enabled: true}
      docker: {enabled: true}
`

// Regression: a file catch-all took every discovered host, a file wildcard
// beat a discovered exact host, and a container's wildcard beat another
// container's exact host because its origin sorted first.
func TestExactHostBeatsWildcardAcrossSources(t *testing.T) {
	wild, anyB := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	lobby, exact := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	wideC, lobbyC := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	yaml := strings.NewReplacer("{{wild}}", wild.Addr(), "{{any}}", anyB.Addr()).Replace(catchAllYAML)
	w := newWorld(t, yaml)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.merger.Replace("kubernetes", []discovery.Route{
		service("games", "lobby", t0, "lobby.test", lobby),
		service("games", "exact", t0, "exact.wild.test", exact),
	})
	w.merger.Replace("docker", []discovery.Route{
		{Origin: "docker aaa", Hosts: []string{"*.docker.test"}, Container: "aaa", Backends: []discovery.Backend{{Addr: wideC.Addr()}}},
		{Origin: "docker lobby", Hosts: []string{"lobby.docker.test"}, Container: "lobby", Backends: []discovery.Backend{{Addr: lobbyC.Addr()}}},
	})
	for _, tc := range []struct {
		host  string
		right *mctest.Backend
	}{
		{"lobby.test", lobby},         // file '*' comes after every discovered route
		{"exact.wild.test", exact},    // discovered exact beats the file's wildcard
		{"lobby.docker.test", lobbyC}, // exact container beats the wildcard container
		{"other.docker.test", wideC},  // the wildcard container keeps the rest
		{"other.wild.test", wild},     // the file's wildcard keeps the rest
		{"nobody.example", anyB},      // the file's catch-all takes what nobody claims
	} {
		all := []*mctest.Backend{wild, anyB, lobby, exact, wideC, lobbyC}
		got := w.landings(tc.host, loginsPerCase, all...)
		for i, b := range all {
			want := int64(0)
			if b == tc.right {
				want = loginsPerCase
			}
			if got[i] != want {
				t.Fatalf("%s: landings per backend %v; want all %d on the rightful one", tc.host, got, loginsPerCase)
			}
		}
	}
}

const claimsYAML = `
config:
  lite:
    enabled: true
    routes:
      - host: file.test
        backend: {{file}}
    discovery:
      kubernetes:
        enabled: true
        hosts:
          games: ['*.test']
          aaa-tenant: ['*.tenant.test', play.test]
`

// Regression: a Service of a namespace sorting first (aaa-tenant) took every
// login of another namespace's host, logged at INFO.
func TestFirstClaimantKeepsHostAgainstNewerNamespace(t *testing.T) {
	fileB, rightful := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	hijack := mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.ReplaceAll(claimsYAML, "{{file}}", fileB.Addr()))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	set := []discovery.Route{
		service("aaa-tenant", "lobby", t0.Add(time.Hour), "play.test", hijack),
		service("aaa-tenant", "own", t0.Add(time.Hour), "own.tenant.test", hijack),
		service("aaa-tenant", "grab", t0.Add(time.Hour), "grab.test", hijack),
		service("games", "lobby", t0, "play.test", rightful),
	}
	w.merger.Replace("kubernetes", set)
	w.merger.Replace("kubernetes", append(set[:len(set):len(set)], service("games", "more", t0, "more.test", rightful)))
	if got := w.landings("play.test", loginsPerCase, rightful, hijack); got[0] != loginsPerCase || got[1] != 0 {
		t.Fatalf("play.test landings rightful %d, newcomer %d; want %d, 0", got[0], got[1], loginsPerCase)
	}
	w.login("own.tenant.test") // its own grant still serves
	if !strings.Contains(w.refused("grab.test"), "no server at this address") {
		t.Fatal("grab.test: a host outside the namespace's grant was routed")
	}
	lines := w.logs.Find("host claim refused")
	if len(lines) != 2 || !strings.Contains(lines[0], `"host"="grab.test"`) || !strings.Contains(lines[1], `"error"="claimed first by kubernetes games/lobby"`) {
		t.Fatalf("refusal lines = %q", lines)
	}
	ss := w.merger.Sources()
	if len(ss) != 1 || len(ss[0].RefusedClaims) != 2 || ss[0].RefusedClaims[1].Origin != "kubernetes aaa-tenant/lobby" {
		t.Fatalf("sources = %+v", ss)
	}
	if got := testutil.ToFloat64(w.merger); got != 2 {
		t.Fatalf("refused claims counter = %v, want 2", got)
	}
}

// Routes of one namespace share a host as before: the first by origin serves.
func TestSameNamespaceClaimsKeepOriginOrder(t *testing.T) {
	fileB, a, b := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.ReplaceAll(fileYAML, "{{file}}", fileB.Addr()))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.merger.Replace("kubernetes", []discovery.Route{
		service("games", "b-newer", t0, "lobby.test", b),
		service("games", "a-older", t0.Add(time.Hour), "lobby.test", a),
	})
	if got := w.landings("lobby.test", loginsPerCase, a, b); got[0] != loginsPerCase {
		t.Fatalf("landings a %d, b %d", got[0], got[1])
	}
	if n := w.logs.Count("host claim refused"); n != 0 {
		t.Fatalf("%d refusals within one namespace", n)
	}
}

// Regression (issue 30, between containers): a newer container, or a newer
// compose project's route of several, named first, took the host of an older
// container. Creation time decides, as between namespaces.
func TestFirstClaimantKeepsHostAgainstNewerContainers(t *testing.T) {
	older, newer, project := mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{}), mctest.NewBackend(t, mctest.Options{})
	w := newWorld(t, strings.NewReplacer("{{wild}}", older.Addr(), "{{any}}", older.Addr()).Replace(catchAllYAML))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.merger.Replace("docker", []discovery.Route{
		{Origin: "docker aaa-newer", Hosts: []string{"play.test"}, Container: "aaa-newer", Created: t0.Add(time.Second),
			Backends: []discovery.Backend{{Addr: newer.Addr()}}},
		{Origin: "docker aaa-1 (+1)", Hosts: []string{"play.test"}, Created: t0.Add(time.Minute),
			Backends: []discovery.Backend{{Addr: project.Addr(), Origin: "docker aaa-1"}, {Addr: project.Addr(), Origin: "docker aaa-2"}}},
		{Origin: "docker zzz-older", Hosts: []string{"play.test"}, Container: "zzz-older", Created: t0,
			Backends: []discovery.Backend{{Addr: older.Addr()}}},
	})
	if got := w.landings("play.test", loginsPerCase, older, newer, project); got[0] != loginsPerCase {
		t.Fatalf("play.test landings older %d, newer %d, project %d; want all on the older", got[0], got[1], got[2])
	}
	ss := w.merger.Sources()
	if len(ss) != 1 || len(ss[0].RefusedClaims) != 2 || ss[0].RefusedClaims[0].Reason != "claimed first by docker zzz-older" {
		t.Fatalf("sources = %+v", ss)
	}
	if n := w.logs.Count("host claim refused"); n != 2 {
		t.Fatalf("%d refusal lines, want 2", n)
	}
}
