package strategy

import (
	"slices"
	"sync"
	"testing"
)

func TestRoundRobinExactRotation(t *testing.T) {
	tests := []struct {
		name     string
		backends int
		logins   int
		seed     uint64
	}{
		{"30 logins over 3 backends", 3, 30, 42},
		{"30 logins over 3 backends, other replica", 3, 30, 7},
		{"100 logins over 10 backends", 10, 100, 1},
		{"single backend", 1, 5, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewManager(Options{Seed: tt.seed})
			bs := addrs(tt.backends)
			m.SetRoutes([]Route{{Key: "r", Strategy: RoundRobin, Backends: bs}})
			got := firsts(m, "r", bs, tt.logins, false)
			for _, b := range bs {
				if want := tt.logins / tt.backends; got[b] != want {
					t.Fatalf("backend %s got %d first places, want %d (all: %v)", b, got[b], want, got)
				}
			}
		})
	}
}

func TestRoundRobinOrderIsRotation(t *testing.T) {
	m, _ := newTestManager(t, RoundRobin, addrs(4)...)
	first := m.Order("r", addrs(4), IntentLogin)
	second := m.Order("r", addrs(4), IntentLogin)
	want := append(slices.Clone(first[1:]), first[0])
	if !slices.Equal(second, want) {
		t.Fatalf("second order %v, want the first rotated by one %v", second, want)
	}
}

func TestRoundRobinStatusPingsDoNotMoveCursor(t *testing.T) {
	bs := addrs(3)
	plain, _ := newTestManager(t, RoundRobin, bs...)
	pinged, _ := newTestManager(t, RoundRobin, bs...)
	for i := range 30 {
		for range i % 4 {
			st := pinged.Order("r", bs, IntentStatus)
			peek := pinged.Order("r", bs, IntentStatus)
			if !slices.Equal(st, peek) {
				t.Fatalf("two status pings in a row got %v then %v", st, peek)
			}
		}
		want := plain.Order("r", bs, IntentLogin)
		if got := pinged.Order("r", bs, IntentLogin); !slices.Equal(got, want) {
			t.Fatalf("login %d with status pings before it: %v, want %v", i, got, want)
		}
	}
}

func TestRoundRobinConcurrentLoginsLoseNoTurn(t *testing.T) {
	bs := addrs(3)
	m, _ := newTestManager(t, RoundRobin, bs...)
	const goroutines, each = 30, 10
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				o := m.Order("r", bs, IntentLogin)
				mu.Lock()
				got[o[0]]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, b := range bs {
		if got[b] != goroutines*each/len(bs) {
			t.Fatalf("concurrent logins landed %v, want exactly %d each", got, goroutines*each/len(bs))
		}
	}
}

func TestRoundRobinReplicasStartAtDifferentOffsets(t *testing.T) {
	bs := addrs(10)
	starts := map[string]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		m := NewManager(Options{Seed: seed})
		m.SetRoutes([]Route{{Key: "r", Strategy: RoundRobin, Backends: bs}})
		starts[m.Order("r", bs, IntentLogin)[0]] = true
	}
	if len(starts) < 3 {
		t.Fatalf("8 replicas started on only %d distinct backends: %v", len(starts), starts)
	}
}
