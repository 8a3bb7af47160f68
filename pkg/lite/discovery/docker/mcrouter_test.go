package docker

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// mc-router's Docker cases (its server/docker_test.go, the label parsing of
// server/docker.go and its README's "Docker discovery labels"), each run
// against the real dockerd with a player logging in through the proxy.

// unknownHost is what a player is told for a host no route serves.
const unknownHost = "There is no server at this address. Check the address and try again."

// how a case's container comes to be.
type making int

const (
	running     making = iota // started, on the default bridge only
	stoppedOne                // created, never started
	pausedOne                 // started, then paused
	noNetwork                 // taken off the bridge before it starts: no network at all
	networkNone               // network mode "none": one network, no address
	dualOnly                  // its only network is the dual-stack one
	bridgeDual                // the bridge and the dual-stack one (alias "mc-alias" there)
)

// mcRouterCase is one case. In label values "{h}" is the case's own domain,
// "{net}" and "{netid}" the dual-stack network's name and ID.
type mcRouterCase struct {
	name     string // where it comes from in mc-router, and what it says
	labels   map[string]string
	listen   string // mcload's address in the container; default 0.0.0.0:25565
	make     making
	served   []string // hosts (under the domain) whose logins this container serves
	unknown  []string // hosts whose logins get unknownHost
	catchAll bool     // a host nobody claims is served by this container too
	addrIn   string   // the serving backend's address starts with it
	motd     string   // the description a ping of asleep or loading shows
	asleep   string   // a host whose ping is answered asleep (with motd)
	loading  string   // a host whose ping is answered with motd while a login wakes it
	route    func(config.Route) string
	skip     string
}

// the dual-stack network's subnets.
const dualV4, dualV6 = "10.9.200.0/24", "fd00:9:200::/64"

var mcRouterCases = []mcRouterCase{
	{name: "docker_test.go TestDockerEndpointIP/prefers IPv4 when both exist; TestDockerWatcherParseContainerData_IPSelection/uses ipv4 for single-network container",
		labels: map[string]string{"mc-router.host": "mc.{h}"}, make: dualOnly, served: []string{"mc"}, addrIn: "10.9.200.", route: port(25565)},
	{name: "docker_test.go TestDockerEndpointIP/falls back to IPv6 when IPv4 absent; IPSelection/uses ipv6 for single-network container when ipv4 absent; TestDockerBackendEndpoint [fd00::20]:25565",
		skip: "dockerd 20.10 gives every endpoint of a bridge network an IPv4 address; TestBuildRoutes (network label by ID; IPv6 when there is no IPv4) covers it"},
	{name: "docker_test.go TestDockerEndpointIP/returns empty when endpoint missing (no network: ignored)",
		labels: map[string]string{"mc-router.host": "mc.{h}"}, make: noNetwork, unknown: []string{"mc"}},
	{name: "docker_test.go IPSelection/rejects container with no routable ip while running",
		labels: map[string]string{"mc-router.host": "mc.{h}"}, make: networkNone, unknown: []string{"mc"}},
	{name: "docker_test.go IPSelection/uses ipv6 for selected network when network label is set (the network label picks the network)",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.network": "{net}"}, make: bridgeDual, served: []string{"mc"}, addrIn: "10.9.200."},
	{name: "README mc-router.network: the network's ID",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.network": "{netid}"}, make: bridgeDual, served: []string{"mc"}, addrIn: "10.9.200."},
	{name: "README mc-router.network: an alias (docker.go never matches one: ignored)",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.network": "mc-alias"}, make: bridgeDual, unknown: []string{"mc"}},
	{name: "docker.go: several networks and no mc-router.network: ignored",
		labels: map[string]string{"mc-router.host": "mc.{h}"}, make: bridgeDual, unknown: []string{"mc"}},
	{name: "README mc-router.host: one host",
		labels: map[string]string{"mc-router.host": "mc.{h}"}, served: []string{"mc"}, route: port(25565)},
	{name: "README mc-router.host: host1.com,host2.com",
		labels: map[string]string{"mc-router.host": "a.{h},b.{h}"}, served: []string{"a", "b"}},
	{name: "README mc-router.host: host1.com, host2.com",
		labels: map[string]string{"mc-router.host": "a.{h}, b.{h}"}, served: []string{"a", "b"}},
	{name: "README mc-router.host: host1.com\\nhost2.com (D04)",
		labels: map[string]string{"mc-router.host": "a.{h}\nb.{h}\n"}, served: []string{"a", "b"}},
	{name: "utils.go SplitExternalHosts: host1.com,\\nhost2.com",
		labels: map[string]string{"mc-router.host": " A.{h},\n  b.{h} "}, served: []string{"a", "b"}},
	{name: "README mc-router.port: the port the server listens on",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.port": "25570"}, listen: "0.0.0.0:25570", served: []string{"mc"}, route: port(25570)},
	{name: "docker.go: mc-router.port not a number: ignored",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.port": "x"}, unknown: []string{"mc"}},
	{name: "docker.go: mc-router.default not a boolean: ignored",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.default": "maybe"}, unknown: []string{"mc"}},
	{name: "docker.go: not running and no auto-scale-up: ignored",
		labels: map[string]string{"mc-router.host": "mc.{h}"}, make: stoppedOne, unknown: []string{"mc"}},
	{name: "README mc-router.auto-scale-up=false: not started, ignored while stopped",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "false"}, make: stoppedOne, unknown: []string{"mc"}},
	{name: "docker.go: mc-router.auto-scale-up not a boolean: ignored",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "yes"}, unknown: []string{"mc"}},
	{name: "README mc-router.auto-scale-up: a stopped container is started on a join",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "true"}, make: stoppedOne, served: []string{"mc"}},
	{name: "README mc-router.auto-scale-up: a paused container is unpaused on a join",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "true"}, make: pausedOne, served: []string{"mc"}},
	{name: "README mc-router.auto-scale-asleep-motd: shown while the container is stopped",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "true", "mc-router.auto-scale-asleep-motd": "zzz {h}"},
		make:   stoppedOne, asleep: "mc", motd: "zzz {h}"},
	{name: "README mc-router.auto-scale-loading-motd: shown while the container wakes (D14)",
		// The server listens on another port than the route's: it stays waking.
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "true", "mc-router.auto-scale-loading-motd": "warming {h}",
			"mc-router.port": "25566"}, make: stoppedOne, loading: "mc", motd: "warming {h}"},
	{name: "README mc-router.auto-scale-down=false: never stopped (idleAfter never)",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "true", "mc-router.auto-scale-down": "false"}, served: []string{"mc"},
		route: wakeSettings(config.DefaultHoldFor, 0)},
	{name: "README mc-router.auto-scale-down=true: stopped once idle (idleAfter, default 10m)",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "true", "mc-router.auto-scale-down": "true"}, served: []string{"mc"},
		route: wakeSettings(config.DefaultHoldFor, config.DefaultIdleAfter)},
	{name: "README mc-router.auto-scale-wait-timeout: how long a join waits (holdFor, under the client's 30s)",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.auto-scale-up": "true", "mc-router.auto-scale-wait-timeout": "20s"}, served: []string{"mc"},
		route: wakeSettings(20*time.Second, config.DefaultIdleAfter)},
	// The catch-all cases come last: a catch-all serves every unknown host.
	{name: "README mc-router.default: the default backend, for its hosts and every unknown one",
		labels: map[string]string{"mc-router.host": "mc.{h}", "mc-router.default": "true"}, served: []string{"mc"}, catchAll: true},
	{name: "README mc-router.default without mc-router.host (mc-router ignores it; here it is the catch-all)",
		labels: map[string]string{"mc-router.default": "TRUE"}, catchAll: true},
}

func TestMCRouterDockerCases(t *testing.T) {
	e := enginetest.NeedDocker(t)
	d := newDaemon(t, e)
	net := enginetest.Uniq("mcr-dual")
	netID := d.dualStack(t, net, dualV4, dualV6)
	p := startProxy(t, e.Host)
	passed := 0
	for i, tc := range mcRouterCases {
		ok := t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			domain := enginetest.Uniq(fmt.Sprintf("mcr%02d", i)) + ".test"
			fill := strings.NewReplacer("{h}", domain, "{net}", net, "{netid}", netID).Replace
			tc.motd = fill(tc.motd)
			name := makeContainer(t, d, tc, net, fill)
			p.runCase(t, tc, name, domain)
		})
		if ok && tc.skip == "" {
			passed++
		}
	}
	t.Logf("figure: %d of mc-router's %d Docker cases run against dockerd and hold (%d need an engine this dockerd is not)",
		passed, len(mcRouterCases), len(mcRouterCases)-passed)
}
