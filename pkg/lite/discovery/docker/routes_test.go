package docker

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
)

// ctr is a running container on the given networks (name=ip).
func ctr(name string, labels map[string]string, nets ...string) engine.Container {
	c := engine.Container{ID: "id-" + name, Names: []string{"/" + name}, Labels: labels, State: "running"}
	c.NetworkSettings.Networks = map[string]engine.Network{}
	for _, n := range nets {
		k, ip, _ := strings.Cut(n, "=")
		c.NetworkSettings.Networks[k] = engine.Network{IPAddress: ip}
	}
	return c
}

// stopped is a container that is not running (exited): it has no address.
func stopped(name string, labels map[string]string, nets ...string) engine.Container {
	c := ctr(name, labels)
	c.State = "exited"
	for _, n := range nets {
		c.NetworkSettings.Networks[n] = engine.Network{}
	}
	return c
}

// compose is the label that makes containers one owner.
const compose = LabelComposeProject

func created(c engine.Container, unix int64) engine.Container { c.Created = unix; return c }

func paused(c engine.Container) engine.Container { c.State = "paused"; return c }

func withNet(c engine.Container, name string, n engine.Network) engine.Container {
	c.NetworkSettings.Networks[name] = n
	return c
}

func be(addr, name string) discovery.Backend {
	return discovery.Backend{Addr: addr, Origin: "docker " + name}
}

// buildRoutesCases are TestBuildRoutes's cases.
var buildRoutesCases = []struct {
	name     string
	cs       []engine.Container
	notReady map[string]bool
	network  string
	want     []discovery.Route
	warns    int
}{
	{
		name: "one container, default port",
		cs:   []engine.Container{ctr("lobby", map[string]string{"gate.hosts": "Lobby.example.com"}, "bridge=10.0.0.2")},
		want: []discovery.Route{{Origin: "docker lobby", Container: "lobby", Hosts: []string{"lobby.example.com"}, KeyPrefix: "gate.",
			Backends: []discovery.Backend{be("10.0.0.2:25565", "lobby")}}},
	},
	{
		name: "three containers of one host are one route, backends by name",
		cs: []engine.Container{
			ctr("lobby-3", map[string]string{"gate.hosts": "a.example.com", compose: "games"}, "bridge=10.0.0.4"),
			ctr("lobby-1", map[string]string{"gate.hosts": "a.example.com", compose: "games"}, "bridge=10.0.0.2"),
			ctr("lobby-2", map[string]string{"gate.hosts": "a.example.com", compose: "games"}, "bridge=10.0.0.3"),
		},
		want: []discovery.Route{{Origin: "docker lobby-1 (+2)", Hosts: []string{"a.example.com"}, KeyPrefix: "gate.",
			Backends: []discovery.Backend{be("10.0.0.2:25565", "lobby-1"), be("10.0.0.3:25565", "lobby-2"), be("10.0.0.4:25565", "lobby-3")}}},
	},
	{
		name: "hosts shared by some containers split into routes per container set",
		cs: []engine.Container{
			ctr("x", map[string]string{"gate.hosts": "a, b", compose: "p"}, "bridge=10.0.0.2"),
			ctr("y", map[string]string{"gate.hosts": "a", compose: "p"}, "bridge=10.0.0.3"),
		},
		want: []discovery.Route{
			{Origin: "docker x (+1)", Hosts: []string{"a"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.0.2:25565", "x"), be("10.0.0.3:25565", "y")}},
			{Origin: "docker x", Container: "x", Hosts: []string{"b"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.0.2:25565", "x")}},
		},
	},
	{
		name: "settings and port label",
		cs: []engine.Container{ctr("s", map[string]string{"gate.hosts": "s.example.com,*.s.example.com", "gate.port": "25570",
			"gate.strategy": "random", "gate.proxyProtocol": "true", "other": "x"}, "bridge=10.0.0.9")},
		want: []discovery.Route{{Origin: "docker s", Container: "s", Hosts: []string{"*.s.example.com", "s.example.com"}, KeyPrefix: "gate.",
			Settings: map[string]string{"strategy": "random", "proxyProtocol": "true"},
			Backends: []discovery.Backend{be("10.0.0.9:25570", "s")}}},
	},
	{
		name: "disagreeing settings: first container by name wins, one warning",
		cs: []engine.Container{
			ctr("b", map[string]string{"gate.hosts": "h", "gate.strategy": "random", compose: "p"}, "bridge=10.0.0.3"),
			ctr("a", map[string]string{"gate.hosts": "h", "gate.strategy": "least-connections", compose: "p"}, "bridge=10.0.0.2"),
		},
		want: []discovery.Route{{Origin: "docker a (+1)", Hosts: []string{"h"}, KeyPrefix: "gate.",
			Settings: map[string]string{"strategy": "least-connections"},
			Backends: []discovery.Backend{be("10.0.0.2:25565", "a"), be("10.0.0.3:25565", "b")}}},
		warns: 1,
	},
	{
		name: "mc-router labels, default server is a catch-all placed last",
		cs: []engine.Container{
			ctr("fallback", map[string]string{"mc-router.default": "true"}, "bridge=10.0.0.5"),
			ctr("mc", map[string]string{"mc-router.host": "mc.example.com", "mc-router.port": "25566"}, "bridge=10.0.0.6"),
		},
		want: []discovery.Route{
			{Origin: "docker mc", Container: "mc", Hosts: []string{"mc.example.com"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.0.6:25566", "mc")}},
			{Origin: "docker fallback", Container: "fallback", Hosts: []string{"*"}, Default: true, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.0.5:25565", "fallback")}},
		},
	},
	{
		name: "gate labels win over mc-router's",
		cs: []engine.Container{ctr("both", map[string]string{"gate.hosts": "g", "mc-router.host": "m", "gate.port": "1", "mc-router.port": "2",
			"gate.network": "front", "mc-router.network": "back"}, "front=10.0.1.2", "back=10.0.2.2")},
		want: []discovery.Route{{Origin: "docker both", Container: "both", Hosts: []string{"g"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.1.2:1", "both")}}},
	},
	{
		name:  "several networks and nothing picks one: skipped with a warning",
		cs:    []engine.Container{ctr("multi", map[string]string{"gate.hosts": "m"}, "front=10.0.1.2", "back=10.0.2.2")},
		want:  []discovery.Route{},
		warns: 1,
	},
	{
		name:    "several networks, configured network picks",
		cs:      []engine.Container{ctr("multi", map[string]string{"gate.hosts": "m"}, "front=10.0.1.2", "back=10.0.2.2")},
		network: "back",
		want:    []discovery.Route{{Origin: "docker multi", Container: "multi", Hosts: []string{"m"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.2.2:25565", "multi")}}},
	},
	{
		name:  "bad port label: skipped with a warning",
		cs:    []engine.Container{ctr("p", map[string]string{"gate.hosts": "p", "gate.port": "70000"}, "bridge=10.0.0.2")},
		want:  []discovery.Route{},
		warns: 1,
	},
	{
		name:  "empty host list: skipped with a warning",
		cs:    []engine.Container{ctr("e", map[string]string{"gate.hosts": " , "}, "bridge=10.0.0.2")},
		want:  []discovery.Route{},
		warns: 1,
	},
	{
		name: "unlabelled containers are not routes",
		cs:   []engine.Container{ctr("db", map[string]string{"gate.strategy": "random"}, "bridge=10.0.0.2")},
		want: []discovery.Route{},
	},
	{
		name:     "unhealthy container keeps its route without a backend",
		cs:       []engine.Container{ctr("sick", map[string]string{"gate.hosts": "s"}, "bridge=10.0.0.2")},
		notReady: map[string]bool{"id-sick": true},
		want:     []discovery.Route{{Origin: "docker sick", Container: "sick", Hosts: []string{"s"}, KeyPrefix: "gate.", Backends: []discovery.Backend{}}},
	},
	{
		name: "stopped container with a wake label keeps its route without a backend",
		cs:   []engine.Container{stopped("sleepy", map[string]string{"gate.hosts": "z", "gate.wake": "container", "gate.idleAfter": "10m"}, "bridge")},
		want: []discovery.Route{{Origin: "docker sleepy", Container: "sleepy", Hosts: []string{"z"}, KeyPrefix: "gate.", Backends: []discovery.Backend{},
			Settings: map[string]string{"wake": "container", "idleAfter": "10m"}}},
	},
	{
		name: "stopped container without a wake label is not a route",
		cs:   []engine.Container{stopped("off", map[string]string{"gate.hosts": "o"}, "bridge"), stopped("blank", map[string]string{"gate.hosts": "b", "gate.wake": " "}, "bridge")},
		want: []discovery.Route{},
	},
	{
		name: "mc-router auto-scale labels read as wake, asleepMotd and loadingMotd",
		cs: []engine.Container{
			stopped("mc", map[string]string{"mc-router.host": "m", "mc-router.auto-scale-up": "true", "mc-router.auto-scale-asleep-motd": "zzz",
				"mc-router.auto-scale-loading-motd": "soon"}),
			stopped("no", map[string]string{"mc-router.host": "n", "mc-router.auto-scale-up": "false"}),
			ctr("own", map[string]string{"mc-router.host": "o", "mc-router.auto-scale-up": "yes", "gate.wake": "exec", "gate.asleepMotd": "mine",
				"mc-router.auto-scale-asleep-motd": "theirs"}, "bridge=10.0.0.7"),
		},
		want: []discovery.Route{
			{Origin: "docker mc", Container: "mc", Hosts: []string{"m"}, KeyPrefix: "gate.", Backends: []discovery.Backend{},
				Settings: map[string]string{"wake": "container", "asleepMotd": "zzz", "loadingMotd": "soon"}},
			{Origin: "docker own", Container: "own", Hosts: []string{"o"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.0.7:25565", "own")},
				Settings: map[string]string{"wake": "exec", "asleepMotd": "mine"}},
		},
	},
	{
		name: "a route of several containers names no container",
		cs: []engine.Container{
			stopped("w-1", map[string]string{"gate.hosts": "w", "gate.wake": "container", compose: "p"}, "bridge"),
			ctr("w-2", map[string]string{"gate.hosts": "w", "gate.wake": "container", compose: "p"}, "bridge=10.0.0.8"),
		},
		want: []discovery.Route{{Origin: "docker w-1 (+1)", Hosts: []string{"w"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.0.8:25565", "w-2")},
			Settings: map[string]string{"wake": "container"}}},
	},
	{
		name: "containers of different owners claiming one host are routes of their own, dated by creation",
		cs: []engine.Container{
			created(ctr("new", map[string]string{"gate.hosts": "h"}, "bridge=10.0.0.3"), 200),
			created(ctr("old-2", map[string]string{"gate.hosts": "h", compose: "p"}, "bridge=10.0.0.2"), 150),
			created(ctr("old-1", map[string]string{"gate.hosts": "h", compose: "p"}, "bridge=10.0.0.1"), 100),
		},
		want: []discovery.Route{
			{Origin: "docker new", Container: "new", Hosts: []string{"h"}, KeyPrefix: "gate.", Created: time.Unix(200, 0).UTC(),
				Backends: []discovery.Backend{be("10.0.0.3:25565", "new")}},
			{Origin: "docker old-1 (+1)", Hosts: []string{"h"}, KeyPrefix: "gate.", Created: time.Unix(100, 0).UTC(),
				Backends: []discovery.Backend{be("10.0.0.1:25565", "old-1"), be("10.0.0.2:25565", "old-2")}},
		},
	},
	{
		name: "mc-router host list on newlines, auto-scale-down false, wait timeout",
		cs: []engine.Container{stopped("mc", map[string]string{"mc-router.host": " a.example.com,\n b.example.com \n", "mc-router.auto-scale-up": "true",
			"mc-router.auto-scale-down": "false", "mc-router.auto-scale-wait-timeout": "20s"})},
		want: []discovery.Route{{Origin: "docker mc", Container: "mc", Hosts: []string{"a.example.com", "b.example.com"}, KeyPrefix: "gate.", Backends: []discovery.Backend{},
			Settings: map[string]string{"wake": "container", "idleAfter": "never", "holdFor": "20s"}}},
	},
	{
		name: "wait timeout the client would not wait for keeps the default, with a warning; gate labels win",
		cs: []engine.Container{
			stopped("long", map[string]string{"mc-router.host": "l", "mc-router.auto-scale-up": "true", "mc-router.auto-scale-wait-timeout": "60s"}),
			stopped("mine", map[string]string{"mc-router.host": "m", "gate.wake": "container", "gate.idleAfter": "1h", "mc-router.auto-scale-down": "false"}),
		},
		want: []discovery.Route{
			{Origin: "docker long", Container: "long", Hosts: []string{"l"}, KeyPrefix: "gate.", Backends: []discovery.Backend{}, Settings: map[string]string{"wake": "container"}},
			{Origin: "docker mine", Container: "mine", Hosts: []string{"m"}, KeyPrefix: "gate.", Backends: []discovery.Backend{}, Settings: map[string]string{"wake": "container", "idleAfter": "1h"}},
		},
		warns: 1,
	},
	{
		name: "auto-scale booleans that do not parse skip the container, as mc-router does",
		cs: []engine.Container{
			ctr("up", map[string]string{"mc-router.host": "u", "mc-router.auto-scale-up": "yes"}, "bridge=10.0.0.2"),
			ctr("down", map[string]string{"mc-router.host": "d", "mc-router.auto-scale-down": "nope"}, "bridge=10.0.0.3"),
		},
		want:  []discovery.Route{},
		warns: 2,
	},
	{
		name: "a paused container is a route without a backend only when it can be woken",
		cs:   []engine.Container{paused(ctr("p", map[string]string{"gate.hosts": "p", "gate.wake": "container"}, "bridge=10.0.0.2")), paused(ctr("q", map[string]string{"gate.hosts": "q"}, "bridge=10.0.0.3"))},
		want: []discovery.Route{{Origin: "docker p", Container: "p", Hosts: []string{"p"}, KeyPrefix: "gate.", Backends: []discovery.Backend{}, Settings: map[string]string{"wake": "container"}}},
	},
	{
		name: "network label by ID, in full or its first 12 characters; IPv6 when there is no IPv4",
		cs: []engine.Container{
			withNet(ctr("byid", map[string]string{"gate.hosts": "i", "mc-router.network": "0123456789ab"}, "bridge=10.0.0.2"), "back", engine.Network{NetworkID: "0123456789abcdef", IPAddress: "10.0.2.2"}),
			withNet(ctr("v6", map[string]string{"gate.hosts": "a", "mc-router.network": "fedcba9876543210"}, "bridge=10.0.0.3"), "back", engine.Network{NetworkID: "fedcba9876543210", GlobalIPv6Address: "fd00::6"}),
		},
		want: []discovery.Route{
			{Origin: "docker v6", Container: "v6", Hosts: []string{"a"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("[fd00::6]:25565", "v6")}},
			{Origin: "docker byid", Container: "byid", Hosts: []string{"i"}, KeyPrefix: "gate.", Backends: []discovery.Backend{be("10.0.2.2:25565", "byid")}},
		},
	},
}

func TestBuildRoutes(t *testing.T) {
	for _, tt := range buildRoutesCases {
		t.Run(tt.name, func(t *testing.T) {
			got, warns := buildRoutes(tt.cs, tt.notReady, tt.network)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("routes:\n got %+v\nwant %+v", got, tt.want)
			}
			if len(warns) != tt.warns {
				t.Errorf("warnings: got %d %+v, want %d", len(warns), warns, tt.warns)
			}
		})
	}
}

func TestCheckHost(t *testing.T) {
	t.Setenv("DOCKER_HOST", "bogus://x")
	if err := Check(configWithHost("")); err == nil || !strings.Contains(err.Error(), "$DOCKER_HOST") {
		t.Errorf("a bad $DOCKER_HOST: %v", err)
	}
}

func configWithHost(h string) config.DockerDiscovery {
	return config.DockerDiscovery{Enabled: true, Host: h}
}
