package discovery

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// decodeResult is one route's decoding, kept with the route it was decoded
// from, so that a set published again with one route changed parses that
// route only.
type decodeResult struct {
	in    Route // as decoded, hosts after claims
	route config.Route
	err   error
}

// lookup returns the result of decoding r, if cached by its origin.
func lookup(cache map[string][]decodeResult, r Route) (decodeResult, bool) {
	for _, res := range cache[r.Origin] {
		if sameContent(res.in, r) {
			return res, true
		}
	}
	return decodeResult{}, false
}

// fitting splits routes into those within config's size caps and the
// rejections of the others, each logged once. It runs before host claims, so
// that an object of 50,000 hosts costs one line, not one per host.
func (m *Merger) fitting(source string, s *sourceState) ([]Route, []Rejected) {
	var rejected []Rejected
	out := s.routes[:0:0]
	for _, r := range s.routes {
		in := config.Discovered{Origin: r.Origin, KeyPrefix: r.KeyPrefix, Hosts: r.Hosts, Settings: r.Settings,
			Backends: make([]string, len(r.Backends))} // only the count matters here
		if err := in.CheckSizes(); err != nil {
			rejected = append(rejected, m.reject(source, s, r.Origin, err, false))
			continue
		}
		out = append(out, r)
	}
	return out, rejected
}

// decode parses each route's settings with the file's parsers, reusing s's
// results for routes published unchanged. A route whose settings do not parse
// is left out and logged once per distinct problem; the rest of the set
// applies.
func (m *Merger) decode(source string, s *sourceState, routes []Route) ([]decoded, []Rejected) {
	var out []decoded
	var rejected []Rejected
	cache := make(map[string][]decodeResult, len(routes))
	for _, r := range routes {
		res, ok := lookup(s.cache, r)
		if !ok {
			res = m.decodeOne(source, r)
		}
		cache[r.Origin] = append(cache[r.Origin], res)
		cr := res.route
		if res.err != nil {
			// A route whose only fault is a `wake` it may not ask for comes back
			// without it (config.ErrNotGranted): served, without waking.
			served := len(cr.Host) > 0
			rejected = append(rejected, m.reject(source, s, r.Origin, res.err, served))
			if !served {
				continue
			}
		}
		out = append(out, decoded{Route: cr, catchAll: r.Default})
	}
	s.cache = cache // only what the set holds now: the cache never outgrows it
	return out, rejected
}

// decodeOne decodes r into the config route the proxy serves.
func (m *Merger) decodeOne(source string, r Route) decodeResult {
	addrs := make([]string, len(r.Backends))
	var origins []string
	for i, b := range r.Backends {
		addrs[i] = b.Addr
		if b.Origin != "" && b.Origin != r.Origin {
			if origins == nil {
				origins = make([]string, len(r.Backends))
			}
			origins[i] = b.Origin
		}
	}
	cr, _, err := m.file.Lite.DecodeDiscovered(config.Discovered{Origin: r.Origin, KeyPrefix: r.KeyPrefix,
		Hosts: r.Hosts, Backends: addrs, Settings: r.Settings,
		Namespace: r.Namespace, Container: r.Container})
	cr.BackendOrigin = origins
	cr.Key = source + "/" + config.RouteKey(cr.Host)
	return decodeResult{in: r, route: cr, err: err}
}

// reject records a route left out (or, served, one whose wake was refused)
// and logs it when the problem appears in s's set.
func (m *Merger) reject(source string, s *sourceState, origin string, err error, served bool) Rejected {
	if s.firstTime("reject\x00" + err.Error()) {
		msg := "discovered route rejected; the source's other routes still apply"
		if served {
			msg = "discovered route's wake refused; the route is served without waking"
		}
		m.o.Log.Error(errors.New(strings.ReplaceAll(err.Error(), "\n", "; ")), msg, "source", source, "origin", origin)
	}
	return Rejected{Origin: origin, Err: err.Error()}
}

// sameContent reports whether decoding a and b reads the same: then their
// results are alike.
func sameContent(a, b Route) bool {
	return a.Origin == b.Origin && a.KeyPrefix == b.KeyPrefix && a.Namespace == b.Namespace &&
		a.Container == b.Container && slices.Equal(a.Hosts, b.Hosts) && slices.Equal(a.Backends, b.Backends) &&
		maps.Equal(a.Settings, b.Settings)
}
