package config

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// EnvPrefix starts every environment variable that overrides a config key,
// as in Gate: the key path in upper case with "." written as "_", so
// config.bind is GATE_CONFIG_BIND and config.lite.shutdownGrace is
// GATE_CONFIG_LITE_SHUTDOWNGRACE. Keys inside lists (routes) cannot be
// addressed one by one; a whole list can be given as a YAML flow value
// (GATE_CONFIG_LITE_ROUTES='[{host: a.example.com, backend: 10.0.0.1}]').
const EnvPrefix = "GATE_"

// commandEnv are the GATE_ variables of the command line (file, logging,
// reload, and the token `gate lite status` sends); they are never config
// keys. GATE_API_TOKEN in particular does not set api.token: a shell that
// exports it for `gate lite status` must not change (or, next to an
// api.tokenFile, break) the config it reads.
var commandEnv = []string{"GATE_CONFIG", "GATE_DEBUG", "GATE_VERBOSITY", "GATE_NO_AUTO_RELOAD", "GATE_API_TOKEN"}

// envOverrides holds the GATE_ variables of one parse and what became of them.
type envOverrides struct {
	vars    map[string]string // name -> value, command-line variables left out
	used    map[string]bool
	sources map[string]string // key path -> the variable that set it
}

func newEnvOverrides(environ []string) envOverrides {
	o := envOverrides{vars: map[string]string{}, used: map[string]bool{}, sources: map[string]string{}}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) || slices.Contains(commandEnv, name) {
			continue
		}
		o.vars[name] = value
	}
	return o
}

// envName is the variable that overrides the key at path.
func envName(path string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(path, ".", "_"))
}

// withEnv returns the entries of a mapping at path with the environment's
// overrides applied: a variable naming a known key replaces (or adds) its
// value; a known key absent from the file but with variables below it is
// added as an empty section so that they are found. added holds the keys of
// such empty sections.
func (d *decoder) withEnv(path string, entries []entry, known map[string]handler) (out []entry, added map[string]bool) {
	if len(d.env.vars) == 0 || strings.Contains(path, "[") {
		return entries, nil
	}
	out = entries
	for _, k := range slices.Sorted(maps.Keys(known)) {
		p := child(path, k)
		name := envName(p)
		i := slices.IndexFunc(out, func(e entry) bool { return e.key.Value == k })
		// GATE_CONFIG names the file; it never left newEnvOverrides.
		if v, ok := d.env.vars[name]; ok {
			d.env.used[name] = true
			d.env.sources[p] = name
			e := entry{key: &yaml.Node{Kind: yaml.ScalarNode, Value: k}, val: d.envValue(name, p, v), path: p}
			if i >= 0 {
				out[i] = e
			} else {
				out = append(out, e)
			}
			continue
		}
		if i < 0 && d.env.hasBelow(name) {
			if added == nil {
				added = map[string]bool{}
			}
			added[k] = true
			d.env.sources[p] = name + "_*"
			out = append(out, entry{key: &yaml.Node{Kind: yaml.ScalarNode, Value: k}, val: &yaml.Node{Kind: yaml.MappingNode}, path: p})
		}
	}
	return out, added
}

func (o envOverrides) hasBelow(name string) bool {
	for v := range o.vars {
		if strings.HasPrefix(v, name+"_") {
			return true
		}
	}
	return false
}

// envValue turns a variable's text into a node: a YAML flow list or mapping
// when it starts with '[' or '{', else a plain scalar whose type is resolved
// as YAML would ("true", "5000", "5s"). Every node gets line 0, which is how
// messages know to name the variable instead of a line of the file.
func (d *decoder) envValue(name, path, v string) *yaml.Node {
	t := strings.TrimSpace(v)
	if !strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "{") {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(t), &doc); err != nil || len(doc.Content) == 0 {
		d.errorf(0, path, ErrSyntax, "invalid YAML flow value: %v", err)
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	n := doc.Content[0]
	clearLines(n, 0)
	return n
}

func clearLines(n *yaml.Node, depth int) {
	if n == nil || depth > maxDepth {
		return
	}
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		clearLines(c, depth+1)
	}
}

// envSource returns the variable a finding at path on line 0 comes from,
// or "" when it comes from the file.
func (d *decoder) envSource(line int, path string) string {
	if line != 0 || len(d.env.sources) == 0 {
		return ""
	}
	for p := path; p != ""; {
		if name, ok := d.env.sources[p]; ok {
			return name
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

// unusedEnv warns about GATE_ variables that named no key this proxy reads.
func (d *decoder) unusedEnv() {
	for _, name := range slices.Sorted(maps.Keys(d.env.vars)) {
		if !d.env.used[name] {
			d.warns = append(d.warns, Warning{File: "environment variable " + name,
				Msg: "matches no config key this proxy reads; ignored (want the key path in upper case, . as _, e.g. GATE_CONFIG_BIND)"})
		}
	}
}
