package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// ErrTooLarge is a write that would take the state past MaxEntries or
// MaxStateBytes.
var ErrTooLarge = errors.New("operator state full")

// State is the operator layer as stored and shared: one entry per key
// (Entry.Key). A State is never changed in place once shared; Apply returns a
// new one.
type State map[string]Entry

// Change is one write: Entry set under its key, or, with Delete, the key
// removed.
type Change struct {
	Entry  Entry
	Delete bool
}

// Apply returns s with c applied.
func (s State) Apply(c Change) State {
	out := maps.Clone(s)
	if out == nil {
		out = State{}
	}
	if c.Delete {
		delete(out, c.Entry.Key())
	} else {
		out[c.Entry.Key()] = c.Entry
	}
	return out
}

// Merge joins two states key by key: a key in either is in the result (no key
// is lost), and where both hold one, the later write wins (Newer). Every
// replica merging the same two states gets the same result, whatever the order
// of its arguments.
func Merge(a, b State) State {
	out := maps.Clone(a)
	if out == nil {
		out = State{}
	}
	for k, e := range b {
		if cur, ok := out[k]; !ok || Newer(e, cur) {
			out[k] = e
		}
	}
	return out
}

// Newer reports whether x wins over y for one key: the later At, then the
// greater By, then the greater encoding, so that equal clocks still decide the
// same way everywhere.
func Newer(x, y Entry) bool {
	if c := x.At.Compare(y.At); c != 0 {
		return c > 0
	}
	if x.By != y.By {
		return x.By > y.By
	}
	xj, _ := json.Marshal(x)
	yj, _ := json.Marshal(y)
	return bytes.Compare(xj, yj) > 0
}

// Pruned returns s without the bans that ended by now (s itself when none did).
func (s State) Pruned(now time.Time) State {
	var out State
	for k, e := range s {
		if e.Expires != nil && !now.Before(*e.Expires) {
			if out == nil {
				out = maps.Clone(s)
			}
			delete(out, k)
		}
	}
	if out == nil {
		return s
	}
	return out
}

// Sorted returns the entries ordered by key (files, the API, tests).
func (s State) Sorted() []Entry {
	keys := slices.Sorted(maps.Keys(s))
	out := make([]Entry, 0, len(keys))
	for _, k := range keys {
		out = append(out, s[k])
	}
	return out
}

// Check refuses a state over the bounds a ConfigMap and a file reader set.
func Check(s State) error {
	if len(s) > MaxEntries {
		return fmt.Errorf("%w: %d entries, at most %d", ErrTooLarge, len(s), MaxEntries)
	}
	n := 0
	for _, e := range s {
		b, _ := json.Marshal(e)
		n += len(b) + len(e.Key())
	}
	if n > MaxStateBytes {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, n, MaxStateBytes)
	}
	return nil
}

// Data encodes s as a ConfigMap's data: one key per entry, its JSON as the value.
func (s State) Data() map[string]string {
	out := make(map[string]string, len(s))
	for k, e := range s {
		b, _ := json.Marshal(e)
		out[k] = string(b)
	}
	return out
}

// FromData decodes a ConfigMap's data. A value that does not decode, or that
// Validate refuses, is skipped and reported (someone edited the ConfigMap by
// hand); the rest stand. A ban already ended is kept: Pruned drops it.
func FromData(data map[string]string) (State, []error) {
	out := State{}
	var errs []error
	for k, v := range data {
		e, err := decodeEntry(k, []byte(v))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[k] = e
	}
	return out, errs
}

// decodeEntry reads one stored entry and checks it is what its key says.
func decodeEntry(k string, v []byte) (Entry, error) {
	kind, target, ok := parseKey(k)
	if !ok {
		return Entry{}, fmt.Errorf("key %q: not an operator entry", clip(k))
	}
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Entry{}, fmt.Errorf("key %q: %w", clip(k), err)
	}
	exp := e.Expires
	e.Expires = nil // an ended ban is still a well-formed entry
	err := Validate(&e, e.At)
	e.Expires = exp
	if err == nil && (e.Kind != kind || e.Target != target) {
		err = fmt.Errorf("entry is %s %q, its key says %s %q", e.Kind, clip(e.Target), kind, clip(target))
	}
	if err != nil {
		return Entry{}, fmt.Errorf("key %q: %w", clip(k), err)
	}
	return e, nil
}
