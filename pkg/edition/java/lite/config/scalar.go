package config

import (
	"math"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// scalar returns the resolved scalar node of e, reporting anything else. Its
// text is charged to the budget: every decoder reads the value through here.
func (d *decoder) scalar(e entry, want string) (*yaml.Node, bool) {
	n := resolve(e.val)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		d.invalid(e, "want %s, got %s", want, describe(n))
		return nil, false
	}
	if !d.spendText(len(n.Value), e) {
		return nil, false
	}
	return n, true
}

// str decodes any non-null scalar as its text.
func (d *decoder) str(e entry, dst *string) {
	if n, ok := d.scalar(e, "a string"); ok {
		*dst = n.Value
	}
}

// typed decodes e's scalar as a T when its YAML tag is one of tags (so "yes"
// is not true and "1.5" is not an integer). want names T in the report.
func typed[T any](d *decoder, e entry, want string, tags ...string) (T, bool) {
	var v T
	n, ok := d.scalar(e, want)
	if !ok {
		return v, false
	}
	if !slices.Contains(tags, n.ShortTag()) || n.Decode(&v) != nil {
		d.invalid(e, "want %s, got %s", want, describe(n))
		return v, false
	}
	return v, true
}

func (d *decoder) boolean(e entry, dst *bool) bool {
	b, ok := typed[bool](d, e, "true or false", "!!bool")
	if ok {
		*dst = b
	}
	return ok
}

func (d *decoder) integer(e entry, lo, hi int64, dst *int64) bool {
	v, ok := typed[int64](d, e, "an integer", "!!int")
	if !ok {
		return false
	}
	if v < lo && hi == 1<<31-1 {
		d.invalid(e, "must be at least %d, got %d", lo, v)
		return false
	}
	if v < lo || v > hi {
		d.invalid(e, "%d out of range (want %d..%d)", v, lo, hi)
		return false
	}
	*dst = v
	return true
}

// intField decodes an int with a lower bound.
func (d *decoder) intField(e entry, lo int64, dst *int) {
	var v int64
	if d.integer(e, lo, 1<<31-1, &v) {
		*dst = int(v)
	}
}

func (d *decoder) number(e entry, dst *float64) bool {
	v, ok := typed[float64](d, e, "a number", "!!int", "!!float")
	if !ok {
		return false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		d.invalid(e, "want a number, got %s", describe(resolve(e.val)))
		return false
	}
	*dst = v
	return true
}

// duration decodes a Go duration string or a bare number of milliseconds.
func (d *decoder) duration(e entry, dst *time.Duration) bool {
	n, ok := d.scalar(e, `a duration like "5s" or a number of milliseconds`)
	if !ok {
		return false
	}
	switch n.ShortTag() {
	case "!!int":
		var ms int64
		const limit = int64(1<<63-1) / int64(time.Millisecond)
		if n.Decode(&ms) != nil || ms > limit || ms < -limit {
			d.invalid(e, "duration %s out of range", truncate(n.Value))
			return false
		}
		*dst = time.Duration(ms) * time.Millisecond
		return true
	case "!!str":
		v, err := time.ParseDuration(n.Value)
		if err != nil {
			d.invalid(e, `invalid duration %q (want e.g. "5s", "1m30s", or a number of milliseconds)`, truncate(n.Value))
			return false
		}
		*dst = v
		return true
	}
	d.invalid(e, `want a duration like "5s" or a number of milliseconds, got %s`, describe(n))
	return false
}

// positive decodes a duration that must be > 0, reporting whether it did.
func (d *decoder) positive(e entry, dst *time.Duration) bool {
	var v time.Duration
	if !d.duration(e, &v) {
		return false
	}
	if v <= 0 {
		d.invalid(e, "must be greater than 0, got %s", v)
		return false
	}
	*dst = v
	return true
}

// nonNegative decodes a duration that must be >= 0, reporting whether it did.
func (d *decoder) nonNegative(e entry, dst *time.Duration) bool {
	var v time.Duration
	if !d.duration(e, &v) {
		return false
	}
	if v < 0 {
		d.invalid(e, "must not be negative, got %s", v)
		return false
	}
	*dst = v
	return true
}

// listItem is one string of a string-or-list value.
type listItem struct {
	s    string
	line int
	path string // the key's path for a single string, indexed for a list
}

// stringList decodes a string or a list of strings (Gate's SingleOrMulti).
func (d *decoder) stringList(e entry) ([]listItem, bool) {
	n := resolve(e.val)
	if n != nil && n.Kind == yaml.ScalarNode && !isNull(n) {
		if !d.spendText(len(n.Value), e) {
			return nil, false
		}
		return []listItem{{s: n.Value, line: n.Line, path: e.path}}, true
	}
	items, ok := d.sequence(e)
	if !ok {
		return nil, false
	}
	out := make([]listItem, 0, len(items))
	for _, it := range items {
		n, ok := d.scalar(it, "a string")
		if !ok {
			return nil, false
		}
		out = append(out, listItem{s: n.Value, line: n.Line, path: it.path})
	}
	return out, true
}
