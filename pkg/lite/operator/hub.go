package operator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// Store is where the shared state lives.
type Store interface {
	// Load reads the state as stored; bad holds entries skipped as invalid.
	Load(ctx context.Context) (s State, bad []error, err error)
	// Write applies c to the stored state (other writers' keys untouched) and
	// returns the state it wrote and its version.
	Write(ctx context.Context, c Change) (State, Version, error)
	// Watch calls changed with every state stored and its version, until ctx
	// ends.
	Watch(ctx context.Context, changed func(State, Version)) error
}

// Version orders the states a Store hands out: of two nonzero versions, the
// greater is the later. A watch delivers states in order, but not in order
// with the writer's own return: without versions, a replica could apply its
// write's state after a newer one it had watched (losing another replica's
// key until the next change), or a watched state from before its write after
// the write. Zero is unordered: applied as it comes.
type Version uint64

// HubOptions configure a Hub.
type HubOptions struct {
	Store Store
	// Apply puts a layer in force (the proxy's reload path). Required.
	Apply func(*Layer) error
	// Now is the clock writes are stamped and bans end by. nil: time.Now.
	Now func() time.Time
	Log logr.Logger
}

// Hub is one proxy's hand on the layer: it validates writes, stores them,
// and applies every state the store holds, its own writes and other
// replicas' alike.
type Hub struct {
	o   HubOptions
	mu  sync.Mutex // serialises applies, so an older state never lands last
	cur *Layer
	ver Version // of the state in force
}

// NewHub returns a hub over o.Store; Start loads the stored state.
func NewHub(o HubOptions) *Hub {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Hub{o: o, cur: Compile(State{})}
}

// Start loads the stored state and applies it.
func (h *Hub) Start(ctx context.Context) error {
	s, bad, err := h.o.Store.Load(ctx)
	if err != nil {
		return err
	}
	for _, e := range bad {
		h.o.Log.Error(e, "operator entry skipped")
	}
	return h.set(s, 0)
}

// Run applies what other writers store until ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	return h.o.Store.Watch(ctx, func(s State, v Version) {
		if err := h.set(s, v); err != nil {
			h.o.Log.Error(err, "operator layer not applied; keeping the one in force")
		}
	})
}

// Layer is the layer in force.
func (h *Hub) Layer() *Layer {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur
}

// Write validates c's entry (stamping who and when), stores it and applies the
// result. It returns the entry as stored.
func (h *Hub) Write(ctx context.Context, c Change, by string) (Entry, error) {
	e := c.Entry
	e.By, e.At = by, h.o.Now().UTC()
	if c.Delete {
		if err := e.Normalize(); err != nil {
			return Entry{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	} else if err := Validate(&e, e.At); err != nil {
		return Entry{}, err
	}
	c.Entry = e
	s, v, err := h.o.Store.Write(ctx, c)
	if err != nil {
		return Entry{}, err
	}
	return e, h.set(s, v)
}

// set compiles s and applies it, unless a later version is in force.
func (h *Hub) set(s State, v Version) error {
	l := Compile(s)
	h.mu.Lock()
	defer h.mu.Unlock()
	if v != 0 && v < h.ver {
		h.o.Log.V(1).Info("operator state older than the one in force skipped", "version", uint64(v), "inForce", uint64(h.ver))
		return nil
	}
	if err := h.o.Apply(l); err != nil {
		return fmt.Errorf("apply operator layer: %w", err)
	}
	h.cur, h.ver = l, max(h.ver, v)
	return nil
}
