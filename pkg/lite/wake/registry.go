package wake

import (
	"errors"
	"reflect"
	"sync"
)

// Factory builds the Target a Spec names; the program wires the engines
// (Kubernetes, Docker, webhook, exec) behind it.
type Factory func(spec Spec) (Target, error)

// ErrNoFactory: the proxy was started without wake engines, so no route can
// wake anything.
var ErrNoFactory = errors.New("no wake engines configured in this proxy")

// registry keeps the targets built for specs across reloads: a reload that
// keeps a spec keeps its Target value and the engine client behind it. Specs
// of one key may differ in options (a timeout), hence a list per key.
//
// The factory runs outside mu: building a target may read a kubeconfig file
// or look a command up on PATH, and nothing that answers a player waits on
// that.
type registry struct {
	factory Factory

	mu    sync.Mutex
	built map[string][]builtTarget // by Spec.Key
}

type builtTarget struct {
	spec   Spec
	target Target
}

// targets returns a Target (or the error that kept one from being built) for
// every spec, in order, and forgets the targets no spec names any more.
// Calls are serialised by the caller (Routes.Bind).
func (r *registry) targets(specs []Spec) ([]Target, []error) {
	out := make([]Target, len(specs))
	errs := make([]error, len(specs))
	r.mu.Lock()
	prev := r.built
	r.mu.Unlock()
	kept := make(map[string][]builtTarget)
	for i, spec := range specs {
		if t := find(kept, spec); t != nil {
			out[i] = t
			continue
		}
		t := find(prev, spec)
		if t == nil {
			t, errs[i] = r.build(spec)
			if errs[i] != nil {
				continue
			}
		}
		kept[spec.Key()] = append(kept[spec.Key()], builtTarget{spec: spec, target: t})
		out[i] = t
	}
	r.mu.Lock()
	r.built = kept
	r.mu.Unlock()
	return out, errs
}

func (r *registry) build(spec Spec) (Target, error) {
	if r.factory == nil {
		return nil, ErrNoFactory
	}
	return r.factory(spec)
}

// find returns the target built for a spec equal to spec, nil if none.
func find(built map[string][]builtTarget, spec Spec) Target {
	for _, b := range built[spec.Key()] {
		if reflect.DeepEqual(b.spec, spec) {
			return b.target
		}
	}
	return nil
}
