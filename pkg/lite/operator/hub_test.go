package operator

import (
	"context"
	"testing"
	"time"
)

// versionedStore hands out the states a test scripts, with their versions.
type versionedStore struct {
	wrote   State
	version Version
}

func (s *versionedStore) Load(context.Context) (State, []error, error) { return State{}, nil, nil }

func (s *versionedStore) Write(context.Context, Change) (State, Version, error) {
	return s.wrote, s.version, nil
}

func (s *versionedStore) Watch(ctx context.Context, _ func(State, Version)) error {
	<-ctx.Done()
	return nil
}

// A replica's write and its watch race: the watch may deliver another
// replica's newer state before the write returns, or a state from before the
// write after it. The hub applies no state older than the one in force.
func TestHubAppliesNoOlderVersion(t *testing.T) {
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	mine := Entry{Kind: Drain, Target: "10.0.0.1:25565", At: at}
	theirs := Entry{Kind: Drain, Target: "10.0.0.2:25565", At: at}
	both := State{}.Apply(Change{Entry: mine}).Apply(Change{Entry: theirs})
	st := &versionedStore{wrote: State{}.Apply(Change{Entry: mine}), version: 10}
	applied := 0
	h := NewHub(HubOptions{Store: st, Apply: func(*Layer) error { applied++; return nil }})

	// The other replica's write (11) is watched before this replica's (10) returns.
	if err := h.set(both, 11); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Write(context.Background(), Change{Entry: mine}, "me"); err != nil {
		t.Fatal(err)
	}
	if got := len(h.Layer().State()); got != 2 || applied != 1 {
		t.Fatalf("after the older write returned: %d entries in force (want both), %d applies (want 1)", got, applied)
	}
	// A state from before both arrives late: skipped. An unordered one (0)
	// and a newer one are applied.
	if err := h.set(State{}, 9); err != nil || len(h.Layer().State()) != 2 {
		t.Fatalf("an older watched state replaced the layer: %v", err)
	}
	if err := h.set(State{}, 12); err != nil || len(h.Layer().State()) != 0 || applied != 2 {
		t.Fatalf("a newer state was not applied: %v (%d applies)", err, applied)
	}
	if err := h.set(both, 0); err != nil || len(h.Layer().State()) != 2 {
		t.Fatalf("an unordered state was not applied: %v", err)
	}
}
