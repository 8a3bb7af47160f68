package docker

import (
	"cmp"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/discovery"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
	"go.minekube.com/gate/pkg/lite/hostport"
)

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
	owner    string    // who answers for its hosts (see owner)
	created  time.Time // when the container was created (whole seconds)
	addr     string    // "" when not ready
	settings map[string]string
}

// claim is one owner's claim on one host (or on the catch-all, defaultKey).
type claim struct{ owner, host string }

// buildRoutes turns the containers into routes: one per set of hosts that the
// same containers of one owner share, in a deterministic order (catch-all
// last), backends ordered by container name. Different owners claiming one
// host make different routes, for the merger's first-claimant rule to settle.
// network is the configured network.
func buildRoutes(cs []engine.Container, notReady map[string]bool, network string) ([]discovery.Route, []warning) {
	var warns []warning
	byClaim := map[claim][]member{}
	for _, c := range cs {
		hosts, isDefault, m, w := readContainer(c, notReady[c.ID], network)
		warns = append(warns, w...)
		if isDefault {
			hosts = append(hosts, defaultKey)
		}
		for _, h := range hosts {
			byClaim[claim{m.owner, h}] = append(byClaim[claim{m.owner, h}], m)
		}
	}
	// Hosts that the very same containers serve make one route.
	groups := map[string][]claim{} // member names (or the owner's catch-all) -> claims
	for cl, ms := range byClaim {
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
		sig := cl.owner + "\x00" + defaultKey
		if cl.host != defaultKey {
			names := make([]string, len(ms))
			for i, m := range ms {
				names[i] = m.name
			}
			sig = strings.Join(names, "\x00")
		}
		groups[sig] = append(groups[sig], cl)
	}
	routes := make([]discovery.Route, 0, len(groups))
	for _, cls := range groups {
		hosts := make([]string, len(cls))
		for i, cl := range cls {
			hosts[i] = cl.host
		}
		slices.Sort(hosts)
		r, w := makeRoute(hosts, byClaim[cls[0]])
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
		return cmp.Or(strings.Compare(strings.Join(a.Hosts, ","), strings.Join(b.Hosts, ",")), strings.Compare(a.Origin, b.Origin))
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
		// The owner's claim dates from its oldest container on the route.
		if r.Created.IsZero() || m.created.Before(r.Created) {
			r.Created = m.created
		}
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
// address yields nothing and one warning. A stopped or paused container
// yields a member without an address when it can be woken, else nothing.
func readContainer(c engine.Container, notReady bool, network string) (hosts []string, isDefault bool, m member, warns []warning) {
	m.name, m.owner = containerName(c), owner(c)
	if c.Created > 0 {
		m.created = time.Unix(c.Created, 0).UTC()
	}
	stopped := c.State != "running"
	if stopped && !wakeable(c.Labels) {
		return nil, false, member{}, nil
	}
	skip := func(p problem) ([]string, bool, member, []warning) {
		return nil, false, member{}, []warning{{key: "container\x00" + c.ID, msg: p.msg, kv: append([]any{"container", m.name}, p.kv...)}}
	}
	hosts, isDefault, bad := routeLabels(c.Labels)
	if bad != nil {
		return skip(*bad)
	}
	if hosts == nil && !isDefault {
		return nil, false, member{}, nil
	}
	port := wire.DefaultPort
	if v, ok := label(c.Labels, LabelPort, LabelMCRouterPort); ok {
		p, err := hostport.ParsePort(strings.TrimSpace(v))
		if err != nil {
			return skip(problem{"container skipped: port label is not a port (1-65535)", []any{"value", v}})
		}
		port = p
	}
	// A stopped or paused container has no address; it gets one when it runs.
	if !stopped {
		ip, bad := address(c, network)
		if bad != nil {
			return skip(*bad)
		}
		if !notReady {
			m.addr = net.JoinHostPort(ip, strconv.Itoa(int(port)))
		}
	}
	var warn *problem
	if m.settings, bad, warn = settings(c.Labels); bad != nil {
		return skip(*bad)
	}
	if warn != nil {
		warns = append(warns, warning{key: "label\x00" + c.ID, msg: warn.msg, kv: append([]any{"container", m.name}, warn.kv...)})
	}
	return hosts, isDefault, m, warns
}

// routeLabels reads the host list and mc-router's default marker. hosts is
// nil when the container names none (then it is a route only as the
// catch-all).
func routeLabels(labels map[string]string) (hosts []string, isDefault bool, bad *problem) {
	if _, ok := labels[LabelMCRouterDefault]; ok {
		b, _, err := boolLabel(labels, LabelMCRouterDefault)
		if err != nil {
			return nil, false, notBoolean(LabelMCRouterDefault, labels)
		}
		isDefault = b
	}
	text, ok := label(labels, LabelHosts, LabelMCRouterHost)
	if !ok {
		return nil, isDefault, nil
	}
	hosts = discovery.SplitHosts(text)
	if len(hosts) == 0 && !isDefault {
		return nil, false, &problem{"container skipped: its host label lists no host", []any{"label", hostsLabelName(labels)}}
	}
	return hosts, isDefault, nil
}

// owner is who answers for a container's host claims: its compose project
// (whose containers, replicas of a service or not, may share a host as one
// balanced route), else the container itself. Between owners the merger
// keeps a host for the first claimant.
func owner(c engine.Container) string {
	if p := strings.TrimSpace(c.Labels[LabelComposeProject]); p != "" {
		return "compose project " + p
	}
	return "container " + containerName(c)
}

// address picks the container's IP: on the network its label names (by
// name, or by ID, in full or its first 12 or more characters), else on the
// configured network, else on its only network; IPv4 first, else IPv6. When
// there is none it says why, for the warning. (The container list carries no
// aliases, so a network is not found by one.)
func address(c engine.Container, network string) (string, *problem) {
	want, named := label(c.Labels, LabelNetwork, LabelMCRouterNetwork)
	if !named && network != "" {
		want, named = network, true
	}
	nets := c.NetworkSettings.Networks
	if !named && len(nets) != 1 {
		names := slices.Sorted(maps.Keys(nets))
		return "", &problem{"container skipped: it is on several networks (or none) and neither a " + LabelNetwork +
			" label nor discovery.docker.network picks one", []any{"networks", strings.Join(names, ",")}}
	}
	var nw engine.Network
	var found bool
	for _, name := range slices.Sorted(maps.Keys(nets)) {
		n := nets[name]
		if !named || name == want {
			want, nw, found = name, n, true
			break
		}
		if n.NetworkID == want || (len(want) >= 12 && strings.HasPrefix(n.NetworkID, want)) {
			nw, found = n, true // a name match, if any, still wins
		}
	}
	if !found {
		return "", &problem{"container skipped: it is not on the network its route names", []any{"network", want}}
	}
	ip := cmp.Or(nw.IPAddress, nw.GlobalIPv6Address)
	if ip == "" {
		return "", &problem{"container skipped: it has no address on its network (host networking?)", []any{"network", want}}
	}
	return ip, nil
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
