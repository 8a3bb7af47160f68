package config

import (
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.yaml.in/yaml/v3"
)

// backendList decodes `backend`: a string, or a list whose items are
// strings or mappings {address, capacity}. The plain forms are Gate's; the
// mapping adds a capacity override for servers whose reported max is not
// their real limit. capacity maps addresses to their override, nil when
// none is set.
func (d *decoder) backendList(e entry) (addrs []string, items []listItem, capacity map[string]int) {
	n := resolve(e.val)
	if n == nil || n.Kind != yaml.SequenceNode {
		addrs, items = d.backends(e)
		return addrs, items, nil
	}
	seq, ok := d.sequence(e)
	if !ok {
		return []string{}, nil, nil
	}
	if len(seq) == 0 {
		d.invalid(e, "empty list: want at least one backend")
		return []string{}, nil, nil
	}
	bad := false
	for _, it := range seq {
		addr, item, c, ok := d.backendItem(it)
		if !ok {
			bad = true
			continue
		}
		addrs, items = append(addrs, addr), append(items, item)
		if c > 0 {
			if capacity == nil {
				capacity = map[string]int{}
			}
			capacity[addr] = c
		}
	}
	if bad {
		return []string{}, nil, nil // reported; not nil so "missing" is not reported too
	}
	return addrs, items, capacity
}

// backendItem decodes one list item: an address, or {address, capacity}.
func (d *decoder) backendItem(e entry) (addr string, item listItem, capacity int, ok bool) {
	n := resolve(e.val)
	if n == nil || n.Kind != yaml.MappingNode {
		s, ok := d.scalar(e, "a backend address or {address, capacity}")
		if !ok {
			return "", item, 0, false
		}
		return d.checkedBackend(s.Value, s.Line, e.path)
	}
	var a *yaml.Node
	aPath := child(e.path, "address")
	if !d.mapping(e, map[string]handler{
		"address": func(f entry) {
			if s, ok := d.scalar(f, "a backend address"); ok {
				a = s
			}
		},
		"capacity": func(f entry) { d.intField(f, 1, &capacity) },
	}, nil) {
		return "", item, 0, false
	}
	if a == nil {
		d.errorf(n.Line, aPath, ErrMissing, "missing (want host[:port])")
		return "", item, 0, false
	}
	addr, item, _, ok = d.checkedBackend(a.Value, a.Line, aPath)
	if ok && capacity > 0 && route.MaxParam(addr) > 0 {
		d.warnf(a.Line, aPath, "capacity is ignored on a templated backend")
		capacity = 0
	}
	return addr, item, capacity, ok
}

func (d *decoder) checkedBackend(s string, line int, path string) (string, listItem, int, bool) {
	if err := validBackend(s); err != nil {
		d.errorf(line, path, ErrInvalid, "invalid backend %q: %v", truncate(s), err)
		return "", listItem{}, 0, false
	}
	return s, listItem{s: s, line: line, path: path}, 0, true
}
