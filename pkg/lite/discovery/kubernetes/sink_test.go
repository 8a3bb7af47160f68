package kubernetes

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// recordingSink keeps every call the source makes, in order.
type recordingSink struct {
	mu       sync.Mutex
	replaces [][]discovery.Route
	at       []time.Time // when each Replace arrived
	stales   []error
}

func (s *recordingSink) Replace(source string, routes []discovery.Route) {
	if source != Name {
		panic("Replace from source " + source)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replaces = append(s.replaces, routes)
	s.at = append(s.at, time.Now())
}

func (s *recordingSink) Stale(source string, cause error) {
	if source != Name {
		panic("Stale from source " + source)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stales = append(s.stales, cause)
}

// last returns the newest set, whether there was one, and how many sets
// have arrived.
func (s *recordingSink) last() ([]discovery.Route, bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replaces) == 0 {
		return nil, false, 0
	}
	return s.replaces[len(s.replaces)-1], true, len(s.replaces)
}

func (s *recordingSink) replaceCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replaces)
}

func (s *recordingSink) staleCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.stales)
}

// all returns a copy of every set received so far.
func (s *recordingSink) all() [][]discovery.Route {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.replaces)
}

// arrivedAt is when set number i (0-based) arrived.
func (s *recordingSink) arrivedAt(i int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.at[i]
}

// route finds the route with the given origin in the newest set.
func (s *recordingSink) route(origin string) (discovery.Route, bool) {
	routes, _, _ := s.last()
	for _, r := range routes {
		if r.Origin == origin {
			return r, true
		}
	}
	return discovery.Route{}, false
}

// waitRoute waits until the newest set satisfies cond for the route with
// origin (absent routes are passed as ok=false) and returns the set's index.
func (s *recordingSink) waitRoute(t *testing.T, what string, d time.Duration, origin string, cond func(r discovery.Route, ok bool) bool) int {
	t.Helper()
	var idx int
	mctest.WaitFor(t, what, d, func() bool {
		_, got, n := s.last()
		if !got {
			return false
		}
		r, ok := s.route(origin)
		idx = n - 1
		return cond(r, ok)
	})
	return idx
}

// runSource runs src until the test ends and fails the test if Run returns
// an error or does not return.
func runSource(t *testing.T, src *Source, sink discovery.Sink) {
	t.Helper()
	mctest.Run(t, "kubernetes source", func(ctx context.Context) error { return src.Run(ctx, sink) })
}

// addrs lists a route's backend addresses.
func addrs(r discovery.Route) []string {
	out := make([]string, 0, len(r.Backends))
	for _, b := range r.Backends {
		out = append(out, b.Addr)
	}
	return out
}

// testLogger logs through t at info level, so that a failing test shows what
// the source said.
func testLogger(t *testing.T) logr.Logger {
	return testr.NewWithOptions(t, testr.Options{Verbosity: 0})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// waitFor polls cond until it holds or d passes, then fails with detail().
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool, detail func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s%s", d, what, detail())
		}
		<-tick.C
	}
}
