package config

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Discovered is a route a discovery source found, before its settings are
// decoded.
type Discovered struct {
	// Origin names the object ("kubernetes ns/svc"); messages start with it.
	Origin string
	// KeyPrefix is how the source spells a key ("gate.minekube.com/"), so
	// messages name the annotation or label the operator wrote.
	KeyPrefix string
	Hosts     []string
	Backends  []string
	// Settings are the other route keys, named as in the file, each value
	// the text written on the object.
	Settings map[string]string
	// Namespace and Container are the object's own scope (discovery.Route):
	// the defaults of a `wake` setting that names none, and the bounds of
	// what it may name (wake.Spec.Own, WakeHook).
	Namespace, Container string
}

// errSourceOwned is why a discovered route may not set host or backend as a
// setting: the source derives them from the object itself.
var errSourceOwned = errors.New("set by the source from the object itself, not by a setting")

// DecodeDiscovered turns a discovered route into a Route with the same
// parsers, defaults and checks as a route written in the file, inheriting l's
// route defaults (health check, disconnect text). Each setting's text is read
// as a YAML value, so `true`, `30s` and `{motd: "..."}` mean what they mean in
// the file, except `wake`: a discovered object may name only its own server
// or a hook of the file granted to it (ErrNotGranted otherwise), never a
// command or webhook of its own. An error is an ErrorList whose entries name
// the origin and the key as the source spells it (ErrLimit for a route over a
// size cap: MaxHostsPerRoute and the others); with it the Route is
// zero, except when every entry is ErrNotGranted: then it is the route
// without its wake, for a caller that serves it without waking. A route with no backends yet is valid: its host is
// known and its players are told it is unavailable.
func (l *Lite) DecodeDiscovered(in Discovered) (Route, []Warning, error) {
	if err := in.CheckSizes(); err != nil {
		return Route{}, nil, err // nothing of an oversized object is parsed
	}
	d := &decoder{file: in.Origin, dir: ".", budget: newBudget(), env: newEnvOverrides(nil),
		scope: scope{namespace: in.Namespace, container: in.Container, discovered: true}, hooks: l.Wake.Hooks}
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, val *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, val)
	}
	add("host", stringSeq(in.Hosts))
	backends := in.Backends
	if len(backends) == 0 {
		// The decoder requires a backend; a placeholder is decoded and then
		// removed, so every other check still runs.
		backends = []string{"0.0.0.0"}
	}
	add("backend", stringSeq(backends))
	for _, k := range slices.Sorted(maps.Keys(in.Settings)) {
		if k == "host" || k == "backend" {
			d.errorf(0, k, ErrInvalid, "%v", errSourceOwned)
			continue
		}
		add(k, settingNode(in.Settings[k]))
	}
	r, _ := d.decodeRoute(entry{key: m, val: m, path: ""}, l, l.HealthCheck)
	r.Line, r.Origin = 0, in.Origin
	if len(in.Backends) == 0 {
		r.Backend, r.Capacity = nil, nil
	}
	warns := d.warns
	for i := range warns {
		warns[i].Path = prefixed(in.KeyPrefix, warns[i].Path)
	}
	if len(d.errs) > 0 {
		onlyRefused := true
		for _, e := range d.errs {
			e.Path = prefixed(in.KeyPrefix, e.Path)
			onlyRefused = onlyRefused && errors.Is(e, ErrNotGranted)
		}
		if !onlyRefused {
			r = Route{}
		}
		return r, warns, d.errs
	}
	return r, warns, nil
}

// prefixed names a key path as the source spells it; host and backend are the
// source's own and keep their names.
func prefixed(prefix, path string) string {
	if path == "" || strings.HasPrefix(path, "host") || strings.HasPrefix(path, "backend") {
		return path
	}
	return prefix + path
}

func stringSeq(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range items {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s})
	}
	return n
}

// settingNode reads a setting's text as a YAML value; text that is not YAML
// stays a string, for the key's own parser to judge. Lines are cleared: they
// would count within the annotation, not a file.
func settingNode(text string) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text}
	}
	// A mapping or list on an annotation or label is written in braces or
	// brackets; block syntax there is a text that happens to hold ": " or
	// start with "- " (a MOTD such as "Lobby: join to wake it").
	if n := doc.Content[0]; (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text}
	}
	clearLines(doc.Content[0], 0)
	return doc.Content[0]
}
