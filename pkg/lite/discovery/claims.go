package discovery

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// RefusedClaim is a host pattern a discovered object asked for and did not
// get: another owner claimed it first, or the file does not grant it.
type RefusedClaim struct {
	Origin string // the refused object, as in Route.Origin
	Host   string // the pattern, lower-cased
	Reason string // who keeps it, or which grant is missing
}

// claimsRefusedDesc counts refused claims by source kind; the host is left out so
// that a tenant cannot grow the series.
var claimsRefusedDesc = prometheus.NewDesc("gate_lite_discovery_claims_refused_total",
	"Host claims of discovered objects refused (another owner claimed the host first, or the file's hosts grant does not cover it), by source.",
	[]string{"source"}, nil)

// owners names who answers for r: its namespace, its container, or each
// container behind a route several share.
func owners(r Route) []string {
	switch {
	case r.Namespace != "":
		return []string{r.Namespace}
	case r.Container != "":
		return []string{r.Container}
	}
	var out []string
	for _, b := range r.Backends {
		if _, name, ok := strings.Cut(b.Origin, " "); ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if out == nil {
		out = []string{r.Origin}
	}
	return out
}

// claimant is one route's claim on one host.
type claimant struct {
	route int
	owner string
}

// earlier orders two routes by who claimed first: creation time (unknown
// times last), then origin, so every replica picks the same one.
func earlier(a, b Route) int {
	switch {
	case a.Created.IsZero() != b.Created.IsZero():
		if a.Created.IsZero() {
			return 1
		}
		return -1
	case !a.Created.Equal(b.Created):
		return a.Created.Compare(b.Created)
	}
	return cmp.Compare(a.Origin, b.Origin)
}

// resolveClaims removes from routes every host its owner may not have: one the
// file's grant does not cover, or one an owner with an earlier route claimed
// first. Routes of one owner keep a host together (the route first by origin
// serves it, as between any two routes). A route left with no host is left
// out. The routes given are not modified.
func resolveClaims(source string, grant config.HostClaims, routes []Route) ([]Route, []RefusedClaim) {
	var refused []RefusedClaim
	allowed := make([][]bool, len(routes))
	claims := map[string][]claimant{}
	for i, r := range routes {
		allowed[i] = make([]bool, len(r.Hosts))
		own := owners(r)
		for j, h := range r.Hosts {
			h = hostKey(h)
			if who := ungranted(grant, own, h); who != "" {
				refused = append(refused, RefusedClaim{Origin: r.Origin, Host: h,
					Reason: fmt.Sprintf("%s %q may not claim it (config.lite.discovery.%s.hosts)", ownerKind(source), who, source)})
				continue
			}
			allowed[i][j] = true
			claims[h] = append(claims[h], claimant{route: i, owner: strings.Join(own, ",")})
		}
	}
	for h, cs := range claims {
		first := slices.MinFunc(cs, func(a, b claimant) int { return earlier(routes[a.route], routes[b.route]) })
		for _, c := range cs {
			if c.owner == first.owner {
				continue
			}
			r := routes[c.route]
			refused = append(refused, RefusedClaim{Origin: r.Origin, Host: h,
				Reason: "claimed first by " + routes[first.route].Origin})
			for j, x := range r.Hosts {
				if hostKey(x) == h {
					allowed[c.route][j] = false
				}
			}
		}
	}
	out := make([]Route, 0, len(routes))
	for i, r := range routes {
		var hosts []string
		for j, h := range r.Hosts {
			if allowed[i][j] {
				hosts = append(hosts, h)
			}
		}
		if len(hosts) == 0 {
			continue
		}
		r.Hosts = hosts
		out = append(out, r)
	}
	slices.SortFunc(refused, func(a, b RefusedClaim) int {
		return cmp.Or(cmp.Compare(a.Origin, b.Origin), cmp.Compare(a.Host, b.Host))
	})
	return out, refused
}

// ungranted returns the first owner the grant does not allow host, or "".
func ungranted(grant config.HostClaims, own []string, host string) string {
	for _, o := range own {
		if !grant.Allows(o, host) {
			return o
		}
	}
	return ""
}

func ownerKind(source string) string {
	if source == config.SourceKubernetes {
		return "namespace"
	}
	return "container"
}

// hostKey is how two claims on one host are recognised.
func hostKey(h string) string { return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(h), ".")) }
