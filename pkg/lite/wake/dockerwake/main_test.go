package dockerwake_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	dockersource "go.minekube.com/gate/pkg/lite/discovery/docker"
)

func TestMain(m *testing.M) { enginetest.Main(m) }

// protocol is the protocol version the tests write into status pings.
const protocol = 767

// The tests watch routes as the gate binary does, through the Docker
// discovery source: a stopped container labelled gate.wake keeps its route.

// latest is a discovery.Sink that keeps the newest route set.
type latest struct {
	mu     sync.Mutex
	routes []discovery.Route
}

func (l *latest) Replace(_ string, routes []discovery.Route) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.routes = slices.Clone(routes)
}

func (l *latest) Stale(string, error) {}

// route is the newest route with a host starting with prefix.
func (l *latest) route(prefix string) (discovery.Route, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, rt := range l.routes {
		for _, h := range rt.Hosts {
			if strings.HasPrefix(h, prefix) {
				return rt, true
			}
		}
	}
	return discovery.Route{}, false
}

// watchRoutes runs a source against the daemon at host until the test ends
// and returns the newest route of a host starting with prefix.
func watchRoutes(t *testing.T, host string) func(prefix string) (discovery.Route, bool) {
	t.Helper()
	src, err := dockersource.New(dockersource.Options{
		Config:     config.DockerDiscovery{Enabled: true, Host: host},
		Log:        (&mctest.Logs{}).Logger(1),
		MinBackoff: 20 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	l := &latest{}
	mctest.Run(t, "docker source", func(ctx context.Context) error { return src.Run(ctx, l) })
	return l.route
}
