package lite_test

import (
	"slices"
	"strings"
)

// liteConfig is the YAML a test proxy serves, built from the keys a test sets, so
// that each test states only what matters to it. Each method returns a new value and
// leaves its receiver as it was, so a config shared by several tests can be extended
// by each.
type liteConfig struct {
	top    []string // keys under config:, e.g. "connectionTimeout: 1s"
	lite   []string // keys under config.lite: besides enabled
	routes []routeYAML
}

type routeYAML struct {
	hosts, backends, keys []string
}

// oneRoute is a config with one route from host to backends.
func oneRoute(host string, backends ...string) liteConfig {
	return liteConfig{}.route(host, backends...)
}

// route adds a route from host to backends.
func (c liteConfig) route(host string, backends ...string) liteConfig {
	c.routes = append(slices.Clip(c.routes), routeYAML{hosts: []string{host}, backends: backends})
	return c
}

// alsoHost adds host patterns to the last route.
func (c liteConfig) alsoHost(hosts ...string) liteConfig {
	c.routes = slices.Clone(c.routes)
	r := &c.routes[len(c.routes)-1]
	r.hosts = append(slices.Clip(r.hosts), hosts...)
	return c
}

// with adds keys to the last route: each a "key: value" line of YAML, or lines of
// YAML at the level of the route's keys (a block's inner lines indented further).
func (c liteConfig) with(keys ...string) liteConfig {
	c.routes = slices.Clone(c.routes)
	r := &c.routes[len(c.routes)-1]
	r.keys = append(slices.Clip(r.keys), keys...)
	return c
}

// withLite adds keys under config.lite.
func (c liteConfig) withLite(keys ...string) liteConfig {
	c.lite = append(slices.Clip(c.lite), keys...)
	return c
}

// withTop adds keys under config.
func (c liteConfig) withTop(keys ...string) liteConfig {
	c.top = append(slices.Clip(c.top), keys...)
	return c
}

// quota adds the block config.quota with keys.
func (c liteConfig) quota(keys ...string) liteConfig {
	return c.withTop(strings.Join(append([]string{"quota:"}, indent("  ", keys)...), "\n"))
}

// quotasOff turns the connections, logins and status quotas off: every player of a
// test comes from loopback, so per-address quotas would throttle the test itself.
// extra are more keys of the quota block.
func (c liteConfig) quotasOff(extra ...string) liteConfig {
	return c.quota(append([]string{"connections: {enabled: false}", "logins: {enabled: false}", "status: {enabled: false}"}, extra...)...)
}

// String writes the config out as the YAML file the proxy reads.
func (c liteConfig) String() string {
	lines := []string{"config:"}
	lines = append(lines, indent("  ", c.top)...)
	lines = append(lines, "  lite:", "    enabled: true")
	lines = append(lines, indent("    ", c.lite)...)
	lines = append(lines, "    routes:")
	for _, r := range c.routes {
		lines = append(lines, "      - host: "+yamlList(r.hosts), "        backend: "+yamlList(r.backends))
		lines = append(lines, indent("        ", r.keys)...)
	}
	return strings.Join(lines, "\n") + "\n"
}

// yamlList writes one item as a scalar and more as a flow list. Items are quoted,
// except one that is already a YAML mapping ({address: ..., capacity: ...}).
func yamlList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		if strings.HasPrefix(s, "{") {
			quoted[i] = s
			continue
		}
		quoted[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	if len(quoted) == 1 {
		return quoted[0]
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// indent prefixes every line of every key with prefix.
func indent(prefix string, keys []string) []string {
	var out []string
	for _, k := range keys {
		for l := range strings.SplitSeq(k, "\n") {
			out = append(out, prefix+l)
		}
	}
	return out
}
