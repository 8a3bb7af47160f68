package docker

import (
	"slices"
	"strings"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/lite/discovery"
)

// recorder is a discovery.Sink that keeps every call.
type recorder struct {
	mu       sync.Mutex
	replaces [][]discovery.Route
	stales   []error
}

func (r *recorder) Replace(source string, routes []discovery.Route) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if source != Name {
		panic("replace from " + source)
	}
	r.replaces = append(r.replaces, slices.Clone(routes))
}

func (r *recorder) Stale(source string, cause error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stales = append(r.stales, cause)
}

func (r *recorder) counts() (replaces, stales int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.replaces), len(r.stales)
}

// route is the last published route with a host starting with prefix.
func (r *recorder) route(prefix string) (discovery.Route, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.replaces) == 0 {
		return discovery.Route{}, false
	}
	return find(r.replaces[len(r.replaces)-1], prefix)
}

func find(routes []discovery.Route, prefix string) (discovery.Route, bool) {
	for _, rt := range routes {
		for _, h := range rt.Hosts {
			if strings.HasPrefix(h, prefix) {
				return rt, true
			}
		}
	}
	return discovery.Route{}, false
}

// addrs lists a route's backend addresses.
func addrs(rt discovery.Route) []string {
	out := make([]string, len(rt.Backends))
	for i, b := range rt.Backends {
		out[i] = b.Addr
	}
	return out
}

// since measures from t0 in milliseconds, for the test log.
func since(t0 time.Time) string { return time.Since(t0).Round(100 * time.Microsecond).String() }
