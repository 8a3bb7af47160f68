package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// maxDepth bounds recursion through aliases and merge keys.
const maxDepth = 64

// decoder walks the YAML tree, collecting every error and warning with its
// file, line and key path instead of stopping at the first.
type decoder struct {
	file   string // as given, used in messages
	dir    string // directory that relative paths (favicon, tokenFile) resolve against
	errs   ErrorList
	warns  []Warning
	budget budget
	env    envOverrides
	// scope is a discovered route's namespace or container (DecodeDiscovered).
	scope scope
	// hooks are the file's wake hooks, once decoded (`wake: hook/<name>`).
	hooks map[string]WakeHook
	// droppedErrs and droppedWarns count findings over maxErrors and maxWarnings.
	droppedErrs, droppedWarns int
}

// entry is one key of a mapping with its value and full key path.
type entry struct {
	key, val *yaml.Node
	path     string
}

// handler decodes the value of one known key.
type handler func(e entry)

// errorf records an error. Past maxErrors only limit errors are kept, so the
// reason decoding stopped is never the one left out.
func (d *decoder) errorf(line int, path string, kind error, format string, args ...any) {
	if len(d.errs) >= maxErrors && kind != ErrLimit {
		d.droppedErrs++
		return
	}
	d.errs = append(d.errs, &Error{File: d.source(line, path), Line: line, Path: path, Msg: clip(fmt.Sprintf(format, args...)), Err: kind})
}

func (d *decoder) warnf(line int, path, format string, args ...any) {
	if len(d.warns) >= maxWarnings {
		d.droppedWarns++
		return
	}
	d.warns = append(d.warns, Warning{File: d.source(line, path), Line: line, Path: path, Msg: clip(fmt.Sprintf(format, args...))})
}

// source names where a finding comes from: the file, or the environment
// variable that set the key.
func (d *decoder) source(line int, path string) string {
	if name := d.envSource(line, path); name != "" {
		return "environment variable " + name
	}
	return d.file
}

// invalid reports a bad value at the value's line.
func (d *decoder) invalid(e entry, format string, args ...any) {
	d.errorf(e.val.Line, e.path, ErrInvalid, format, args...)
}

// child extends a key path. Keys are truncated like quoted values, so that
// a huge unknown key cannot make every message that names it huge.
func child(path, key string) string {
	key = truncate(key)
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < maxDepth; depth++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what a node is, for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	n = resolve(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind != yaml.ScalarNode:
		return "an unsupported node"
	case n.ShortTag() == "!!null":
		return "nothing (null)"
	case n.ShortTag() == "!!str":
		return strconv.Quote(truncate(n.Value))
	default:
		return truncate(n.Value)
	}
}

// pairs returns the entries of a mapping, with YAML merge keys (`<<: *x`)
// expanded: explicit keys win over merged ones. A null value counts as an
// empty mapping (`lite:` with nothing under it). Duplicate keys are errors.
func (d *decoder) pairs(e entry) ([]entry, bool) {
	n := resolve(e.val)
	if isNull(n) {
		return nil, true
	}
	if n.Kind != yaml.MappingNode {
		d.invalid(e, "want a mapping, got %s", describe(n))
		return nil, false
	}
	var (
		out    []entry
		merged []entry
		seen   = map[string]int{}
	)
	d.collect(e, n, 0, &out, &merged, seen)
	if d.budget.exhausted {
		return nil, false // reported; the entries may be incomplete
	}
	for _, m := range merged {
		if _, dup := seen[m.key.Value]; !dup {
			seen[m.key.Value] = m.key.Line
			out = append(out, m)
		}
	}
	return out, true
}

// collect gathers the explicit keys of n, the mapping site's value resolves
// to, into out and the keys merged in through `<<` into merged.
func (d *decoder) collect(site entry, n *yaml.Node, depth int, out, merged *[]entry, seen map[string]int) {
	if !d.spend(1+len(n.Content), site) {
		return
	}
	path := site.path
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !d.spendText(len(k.Value), site) {
			return
		}
		if k.ShortTag() == "!!merge" {
			d.merge(entry{key: k, val: v, path: path}, depth, merged)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k.Line, path, ErrInvalid, "want a plain key, got %s", describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.errorf(k.Line, child(path, k.Value), ErrInvalid, "duplicate key (first at line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		*out = append(*out, entry{key: k, val: v, path: child(path, k.Value)})
	}
}

// merge expands the value of a `<<` key: a mapping or a list of mappings.
func (d *decoder) merge(e entry, depth int, merged *[]entry) {
	if depth >= maxDepth {
		d.invalid(e, "merge keys nested too deeply")
		return
	}
	v := resolve(e.val)
	sources := []*yaml.Node{v}
	if v != nil && v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	for _, src := range sources {
		src = resolve(src)
		if src == nil || src.Kind != yaml.MappingNode {
			d.invalid(e, "merge key wants a mapping, got %s", describe(src))
			continue
		}
		var inner []entry
		innerSeen := map[string]int{}
		d.collect(e, src, depth+1, &inner, merged, innerSeen)
		*merged = append(*merged, inner...)
	}
}

// mapping decodes a mapping, dispatching known keys to their handlers and
// reporting unknown ones with a suggestion. ignored maps keys that are
// accepted with a warning to that warning's message.
func (d *decoder) mapping(e entry, known map[string]handler, ignored map[string]string) bool {
	entries, ok := d.pairs(e)
	if !ok {
		return false
	}
	entries, added := d.withEnv(e.path, entries, known)
	for _, f := range entries {
		name := f.key.Value
		if h, ok := known[name]; ok {
			if added[name] {
				d.handleAdded(f, h)
			} else {
				h(f)
			}
			continue
		}
		if msg, ok := ignored[name]; ok {
			d.warnf(f.key.Line, f.path, "%s", msg)
			continue
		}
		d.unknown(f, known, ignored)
	}
	return true
}

// handleAdded decodes a section that only environment variables below it
// asked for. When the key turns out not to be a section, the variables named
// nothing: the mismatch is dropped here and they are warned about as unused.
func (d *decoder) handleAdded(f entry, h handler) {
	n := len(d.errs)
	h(f)
	kept := d.errs[:n]
	for _, err := range d.errs[n:] {
		if err.Path != f.path {
			kept = append(kept, err)
		}
	}
	d.errs = kept
}

func (d *decoder) unknown(f entry, known map[string]handler, ignored map[string]string) {
	if len(d.errs) >= maxErrors {
		d.droppedErrs++ // not shown, so the suggestion is not worth its work
		return
	}
	ours := slices.Sorted(maps.Keys(known))
	name := truncate(f.key.Value)
	if s := suggest(f.key.Value, append(slices.Sorted(maps.Keys(ignored)), ours...)); s != "" {
		d.errorf(f.key.Line, f.path, ErrUnknownKey, "unknown key %q (did you mean %q?)", name, s)
		return
	}
	d.errorf(f.key.Line, f.path, ErrUnknownKey, "unknown key %q (want one of %s)", name, joinKeys(ours))
}

// truncate shortens a value quoted in a message so that a huge scalar does
// not make a huge error.
func truncate(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// sequence returns the items of a list with their paths.
func (d *decoder) sequence(e entry) ([]entry, bool) {
	n := resolve(e.val)
	if n == nil || n.Kind != yaml.SequenceNode {
		d.invalid(e, "want a list, got %s", describe(n))
		return nil, false
	}
	if !d.spend(1+len(n.Content), e) {
		return nil, false
	}
	out := make([]entry, len(n.Content))
	for i, item := range n.Content {
		out[i] = entry{key: e.key, val: item, path: index(e.path, i)}
	}
	return out, true
}
