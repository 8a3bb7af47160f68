package config

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"go.minekube.com/gate/pkg/lite/wake"
)

// ErrNotGranted marks a discovered route's `wake` that asks for more than its
// object's own server, or for a hook the file does not grant it.
var ErrNotGranted = errors.New("not granted to a discovered object")

// anyScope in a hook's namespaces or containers grants every one.
const anyScope = "*"

// WakeHook is a wake target the file defines once, under a name
// (`config.lite.wake.hooks.<name>`). A route of the file names it as
// `wake: hook/<name>`; a discovered route may too, when the hook grants its
// namespace or container. A hook is one target: every route naming it shares
// its wakes, sleeps and idle countdown.
type WakeHook struct {
	// Wake is the target: anything a file route's `wake` may name, except
	// another hook. Required.
	Wake wake.Spec
	// Namespaces are the Kubernetes namespaces whose Services may name the
	// hook. Default none; "*" grants every namespace.
	Namespaces []string
	// Containers are the Docker containers whose labels may name the hook
	// (a route several containers share owns no name: only "*" grants it).
	// Default none; "*" grants every container.
	Containers []string
	// Line is where the hook is defined in the file.
	Line int
}

// grants reports whether a discovered route of scope s may name the hook.
// A Service always has a namespace, a container never does.
func (h WakeHook) grants(s scope) bool {
	if s.namespace != "" {
		return slices.Contains(h.Namespaces, anyScope) || slices.Contains(h.Namespaces, s.namespace)
	}
	return slices.Contains(h.Containers, anyScope) || (s.container != "" && slices.Contains(h.Containers, s.container))
}

// decodeWakeHooks decodes `config.lite.wake.hooks`: a mapping of names to
// hooks. Later keys of the file may name them (d.hooks).
func (d *decoder) decodeWakeHooks(e entry, dst *map[string]WakeHook) {
	entries, ok := d.pairs(e)
	if !ok {
		return
	}
	hooks := make(map[string]WakeHook, len(entries))
	for _, f := range entries {
		if f.key.Value == "" || strings.ContainsAny(f.key.Value, "/ ") {
			d.invalid(f, "hook name %q: want a name without '/' or spaces", truncate(f.key.Value))
			continue
		}
		if h, ok := d.wakeHook(f); ok {
			hooks[f.key.Value] = h
		}
	}
	*dst = hooks
	d.hooks = hooks
}

// wakeHook decodes one hook: {wake: <target>, namespaces: [...], containers: [...]}.
func (d *decoder) wakeHook(e entry) (WakeHook, bool) {
	var h WakeHook
	var spec *wake.Spec
	before := len(d.errs)
	ok := d.mapping(e, map[string]handler{
		"wake":       func(f entry) { spec = d.wakeSpec(f) },
		"namespaces": func(f entry) { h.Namespaces = d.strings(f) },
		"containers": func(f entry) { h.Containers = d.strings(f) },
	}, nil)
	if !ok || len(d.errs) > before {
		return h, false
	}
	if spec == nil {
		d.errorf(e.key.Line, child(e.path, "wake"), ErrMissing, "missing: a hook names its wake target")
		return h, false
	}
	h.Wake, h.Line = *spec, e.key.Line
	return h, true
}

// strings decodes a string or a list of strings into plain strings.
func (d *decoder) strings(e entry) []string {
	items, ok := d.stringList(e)
	if !ok {
		return nil
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.s
	}
	return out
}

// hook resolves `wake: hook/<name>`: any hook for a file route, a granted
// one for a discovered route.
func (d *decoder) hook(e entry, name string) *wake.Spec {
	h, ok := d.hooks[name]
	if !ok {
		names := "none are defined"
		if len(d.hooks) > 0 {
			names = "defined: " + strings.Join(slices.Sorted(maps.Keys(d.hooks)), ", ")
		}
		d.invalid(e, "wake: no hook %q in config.lite.wake.hooks (%s)", truncate(name), names)
		return nil
	}
	if d.scope.discovered && !h.grants(d.scope) {
		d.errorf(resolve(e.val).Line, e.path, ErrNotGranted,
			"wake: hook %q is not granted to this object (config.lite.wake.hooks.%s lists the namespaces and containers that may name it)", name, name)
		return nil
	}
	spec := h.Wake
	return &spec
}
