package feed_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/events/feed"
	"go.minekube.com/gate/pkg/lite/strategy"
	"go.minekube.com/gate/pkg/lite/wake"
)

func types(s *events.Sub) []string {
	var out []string
	for {
		select {
		case e := <-s.C():
			out = append(out, e.Type.String()+" "+e.Route+e.Target+e.Backend)
		default:
			return out
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Routes reports the routes that came and went between two applies.
func TestRoutesAddedAndRemovedAcrossApplies(t *testing.T) {
	bus := events.NewBus(0)
	s, _ := bus.Subscribe(events.AllTypes, 16, 0)
	defer s.Close()
	f := feed.New(bus, events.NewSessions())
	f.Routes([]lite.RouteInfo{{Key: "a", Backends: []string{"x:1"}}, {Key: "b"}})
	f.Routes([]lite.RouteInfo{{Key: "b"}, {Key: "c", Backends: []string{"y:1"}}})
	want := []string{"route-added ax:1", "route-added b", "route-added cy:1", "route-removed ax:1"}
	if got := types(s); !equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Watch publishes backend-down and backend-up when health crosses between usable
// and not, and wake when a target's phase changes; the first reading is the baseline.
func TestWatchReportsHealthAndWakeChanges(t *testing.T) {
	var mu sync.Mutex
	var reads atomic.Int32
	health, phase := strategy.HealthHealthy, wake.PhaseAsleep
	src := feed.Source{
		Backends: func() []lite.BackendInfo {
			mu.Lock()
			defer mu.Unlock()
			return []lite.BackendInfo{{Route: "r", Backend: "b:1", Known: true, State: strategy.BackendState{Health: health}}}
		},
		Wake: func() []wake.State { // read after Backends: a reading is done when it returns
			mu.Lock()
			defer mu.Unlock()
			defer reads.Add(1)
			return []wake.State{{Key: "docker mc", Phase: phase}}
		},
	}
	set := func(h, p string) {
		mu.Lock()
		health, phase = h, p
		mu.Unlock()
	}
	bus := events.NewBus(0)
	s, _ := bus.Subscribe(events.AllTypes, 16, 0)
	defer s.Close()
	f := feed.New(bus, events.NewSessions())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Watch(ctx, src, time.Millisecond) }()
	defer func() { cancel(); <-done }()
	var got []string
	wait := func(n int) {
		mctest.WaitFor(t, "events", 5*time.Second, func() bool { got = append(got, types(s)...); return len(got) >= n })
	}
	mctest.WaitFor(t, "the baseline read", 5*time.Second, func() bool { return reads.Load() > 0 })
	set(strategy.HealthEjected, wake.PhaseWaking)
	wait(2)
	set(strategy.HealthDown, wake.PhaseWaking) // ejected -> down: not a crossing
	set(strategy.HealthHealthy, wake.PhaseAwake)
	wait(4)
	// Each set changes both sources at once, but a poll reads them one after the
	// other: one poll may see the wake change and the next the health change, so
	// each pair's order is free.
	want := []string{"backend-down rb:1", "wake docker mc", "backend-up rb:1", "wake docker mc"}
	if len(got) != len(want) || !sameSet(got[:2], want[:2]) || !sameSet(got[2:], want[2:]) {
		t.Fatalf("got %q, want %q (each pair in either order)", got, want)
	}
}

// A login to no route is refused with its reason; a status ping is no event.
func TestRefusedLoginIsAnEventPingIsNot(t *testing.T) {
	w := newWorld(t, true)
	s, _ := w.bus.Subscribe(events.AllTypes, 16, 0)
	defer s.Close()
	if _, err := mctest.Ping(w.addr, 765, "nowhere.example.com"); err == nil {
		t.Fatal("a ping to no route was answered")
	}
	c := mctest.Dial(t, w.addr)
	_, _ = c.Write(mctest.LoginPreamble(765, "nowhere.example.com", "Steve"))
	_, _ = c.Disconnect()
	var e events.Event
	mctest.WaitFor(t, "refused", 5*time.Second, func() bool {
		select {
		case e = <-s.C():
			return true
		default:
			return false
		}
	})
	if e.Type != events.Refused || e.Reason != lite.ReasonNoRoute || e.VHost != "nowhere.example.com" {
		t.Fatalf("event %+v", e)
	}
	if got := types(s); len(got) != 0 {
		t.Fatalf("more events: %q", got)
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	return equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
