package docker

import (
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/discovery"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
	"go.minekube.com/gate/pkg/lite/hostport"
)

// Labels read on containers. gate's win over mc-router's of the same meaning.
const (
	KeyPrefix = "gate."

	LabelHosts   = KeyPrefix + "hosts"   // comma-separated host patterns
	LabelPort    = KeyPrefix + "port"    // backend port; default wire.DefaultPort
	LabelNetwork = KeyPrefix + "network" // network whose address is the backend's

	LabelMCRouterHost    = "mc-router.host"
	LabelMCRouterPort    = "mc-router.port"
	LabelMCRouterNetwork = "mc-router.network"
	LabelMCRouterDefault = "mc-router.default" // "true": catch-all route

	// LabelWake names what wakes the route (`container`: this container). A
	// stopped container with it keeps its route, without a backend, so that a
	// player can wake it. Its value is the route's `wake` setting.
	LabelWake = KeyPrefix + "wake"
	// mc-router's per-container switch for starting a stopped container on a
	// join; "true" reads as `gate.wake: container`.
	LabelMCRouterAutoScaleUp = "mc-router.auto-scale-up"
	// mc-router's asleep MOTD; it reads as `gate.asleepMotd`.
	LabelMCRouterAsleepMOTD = "mc-router.auto-scale-asleep-motd"
)

// WakeSelf is the wake setting that a container names itself by.
const WakeSelf = "container"

// defaultKey groups the catch-all members apart from every host.
const defaultKey = "\x00default"

// warning is something wrong with the containers that the source logs once for
// as long as it lasts; key says when two warnings are the same one.
type warning struct {
	key string
	msg string
	kv  []any
}

// member is one container's contribution to routes.
type member struct {
	name     string
	addr     string // "" when not ready
	settings map[string]string
}

// buildRoutes turns the running containers into routes: one per set of hosts
// that the same containers share, in a deterministic order (catch-all last),
// backends ordered by container name. network is the configured network.
func buildRoutes(cs []engine.Container, notReady map[string]bool, network string) ([]discovery.Route, []warning) {
	var warns []warning
	byHost := map[string][]member{}
	for _, c := range cs {
		hosts, isDefault, m, w := readContainer(c, notReady[c.ID], network)
		warns = append(warns, w...)
		for _, h := range hosts {
			byHost[h] = append(byHost[h], m)
		}
		if isDefault {
			byHost[defaultKey] = append(byHost[defaultKey], m)
		}
	}
	// Hosts that the very same containers serve make one route.
	groups := map[string][]string{} // member names -> hosts
	for h, ms := range byHost {
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.name
		}
		sig := strings.Join(names, "\x00")
		if h == defaultKey {
			sig = defaultKey
		}
		groups[sig] = append(groups[sig], h)
	}
	routes := make([]discovery.Route, 0, len(groups))
	for _, hosts := range groups {
		slices.Sort(hosts)
		r, w := makeRoute(hosts, byHost[hosts[0]])
		warns = append(warns, w...)
		routes = append(routes, r)
	}
	slices.SortFunc(routes, func(a, b discovery.Route) int {
		if a.Default != b.Default {
			if a.Default {
				return 1
			}
			return -1
		}
		return strings.Compare(strings.Join(a.Hosts, ","), strings.Join(b.Hosts, ","))
	})
	return routes, warns
}

// makeRoute builds the route of hosts served by ms (sorted by name).
func makeRoute(hosts []string, ms []member) (discovery.Route, []warning) {
	r := discovery.Route{Hosts: hosts, KeyPrefix: KeyPrefix, Backends: []discovery.Backend{}}
	if hosts[0] == defaultKey {
		r.Hosts, r.Default = []string{"*"}, true
	}
	r.Origin = "docker " + ms[0].name
	if len(ms) == 1 {
		// A wake setting of several containers names none of them: waking
		// one of three is nobody's intent, so the wake parser sees no name.
		r.Container = ms[0].name
	}
	if len(ms) > 1 {
		r.Origin += " (+" + strconv.Itoa(len(ms)-1) + ")"
	}
	var warns []warning
	owner := map[string]string{} // setting -> container it was taken from
	for _, m := range ms {
		if m.addr != "" {
			r.Backends = append(r.Backends, discovery.Backend{Addr: m.addr, Origin: "docker " + m.name})
		}
		for k, v := range m.settings {
			if r.Settings == nil {
				r.Settings = map[string]string{}
			}
			first, seen := owner[k]
			if !seen {
				r.Settings[k], owner[k] = v, m.name
				continue
			}
			if r.Settings[k] != v {
				warns = append(warns, warning{
					key: "setting\x00" + strings.Join(r.Hosts, ",") + "\x00" + k + "\x00" + first + "\x00" + m.name,
					msg: "containers of one route disagree on a setting; using the first container's by name",
					kv:  []any{"route", r.Origin, "label", KeyPrefix + k, "used", first, "ignored", m.name},
				})
			}
		}
	}
	return r, warns
}

// readContainer reads one container's labels: its host patterns, whether it is
// a catch-all, and its member entry (addr "" if it is not ready). A container
// without route labels yields nothing; one whose labels or networks give no
// address yields nothing and one warning. A stopped container yields a member
// without an address when it can be woken, else nothing.
func readContainer(c engine.Container, notReady bool, network string) (hosts []string, isDefault bool, m member, warns []warning) {
	m.name = containerName(c)
	stopped := c.State != "running"
	if stopped && !wakeable(c.Labels) {
		return nil, false, member{}, nil
	}
	skip := func(msg string, kv ...any) ([]string, bool, member, []warning) {
		kv = append([]any{"container", m.name}, kv...)
		return nil, false, member{}, []warning{{key: "container\x00" + c.ID, msg: msg, kv: kv}}
	}
	hostsText, hasHosts := label(c.Labels, LabelHosts, LabelMCRouterHost)
	if v, ok := c.Labels[LabelMCRouterDefault]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return skip("container skipped: label is not a boolean", "label", LabelMCRouterDefault, "value", v)
		}
		isDefault = b
	}
	if !hasHosts && !isDefault {
		return nil, false, member{}, nil
	}
	if hasHosts {
		hosts = splitHosts(hostsText)
		if len(hosts) == 0 && !isDefault {
			return skip("container skipped: its host label lists no host", "label", hostsLabelName(c.Labels))
		}
	}
	port := wire.DefaultPort
	if v, ok := label(c.Labels, LabelPort, LabelMCRouterPort); ok {
		p, err := hostport.ParsePort(strings.TrimSpace(v))
		if err != nil {
			return skip("container skipped: port label is not a port (1-65535)", "value", v)
		}
		port = p
	}
	// A stopped container has no address; it gets one when it starts.
	if !stopped {
		ip, why, kv := address(c, network)
		if why != "" {
			return skip(why, kv...)
		}
		if !notReady {
			m.addr = net.JoinHostPort(ip, strconv.Itoa(int(port)))
		}
	}
	m.settings = settings(c.Labels)
	return hosts, isDefault, m, nil
}

// settings collects the `gate.<key>` labels that are route settings, and
// mc-router's wake labels where no gate label says the same.
func settings(labels map[string]string) map[string]string {
	var s map[string]string
	set := func(k, v string) {
		if s == nil {
			s = map[string]string{}
		}
		s[k] = v
	}
	for k, v := range labels {
		if key, ok := strings.CutPrefix(k, KeyPrefix); ok && key != "" && k != LabelHosts && k != LabelPort && k != LabelNetwork {
			set(key, v)
		}
	}
	if _, ok := labels[LabelWake]; !ok && mcRouterTrue(labels[LabelMCRouterAutoScaleUp]) {
		set("wake", WakeSelf)
	}
	if v, ok := labels[LabelMCRouterAsleepMOTD]; ok {
		if _, mine := labels[KeyPrefix+"asleepMotd"]; !mine {
			set("asleepMotd", v)
		}
	}
	return s
}

// wakeable reports whether a stopped container keeps its route: it names a
// wake target (any non-blank value; the wake parser judges the value).
func wakeable(labels map[string]string) bool {
	if v, ok := labels[LabelWake]; ok {
		return strings.TrimSpace(v) != ""
	}
	return mcRouterTrue(labels[LabelMCRouterAutoScaleUp])
}

// mcRouterTrue reads a boolean label the way mc-router does: anything but
// blank, "0", "false" and "no" is true.
func mcRouterTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no":
		return false
	}
	return true
}

// address picks the container's IP: on the network its label names, else on
// the configured network, else on its only network. When there is none it says
// why, for the warning.
func address(c engine.Container, network string) (ip, why string, kv []any) {
	netName, named := label(c.Labels, LabelNetwork, LabelMCRouterNetwork)
	if !named && network != "" {
		netName, named = network, true
	}
	nets := c.NetworkSettings.Networks
	if !named {
		if len(nets) != 1 {
			names := slices.Sorted(maps.Keys(nets))
			return "", "container skipped: it is on several networks (or none) and neither a " + LabelNetwork +
				" label nor discovery.docker.network picks one", []any{"networks", strings.Join(names, ",")}
		}
		for n := range nets {
			netName = n
		}
	}
	nw, ok := nets[netName]
	if !ok {
		return "", "container skipped: it is not on the network its route names", []any{"network", netName}
	}
	if ip = nw.IPAddress; ip == "" {
		ip = nw.GlobalIPv6Address
	}
	if ip == "" {
		return "", "container skipped: it has no address on its network (host networking?)", []any{"network", netName}
	}
	return ip, "", nil
}

// label returns the gate label's value if set, else mc-router's.
func label(labels map[string]string, gate, mcRouter string) (string, bool) {
	if v, ok := labels[gate]; ok {
		return v, true
	}
	v, ok := labels[mcRouter]
	return v, ok
}

func hostsLabelName(labels map[string]string) string {
	if _, ok := labels[LabelHosts]; ok {
		return LabelHosts
	}
	return LabelMCRouterHost
}

// splitHosts splits a comma-separated host list, lowercased, without blanks
// or repeats, in the order written.
func splitHosts(s string) []string {
	var out []string
	seen := map[string]bool{} // a label of 50,000 hosts took 9 s with a linear search per host
	for h := range strings.SplitSeq(s, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// containerName is the container's own name without the leading slash (the
// API also lists names it has as a link alias, which contain another slash).
func containerName(c engine.Container) string {
	for _, n := range c.Names {
		if n = strings.TrimPrefix(n, "/"); !strings.Contains(n, "/") {
			return n
		}
	}
	if len(c.Names) > 0 {
		return strings.TrimPrefix(c.Names[0], "/")
	}
	return c.ID[:min(12, len(c.ID))]
}
