package strategy

import (
	"slices"
	"testing"
)

func TestRandomIsUniform(t *testing.T) {
	wantEvenFirsts(t, Random, 5, 5000, "")
}

func TestRandomSameSeedSameOrders(t *testing.T) {
	bs := addrs(6)
	a, _ := newTestManager(t, Random, bs...)
	b, _ := newTestManager(t, Random, bs...)
	for i := range 50 {
		if x, y := a.Order("r", bs, IntentLogin), b.Order("r", bs, IntentLogin); !slices.Equal(x, y) {
			t.Fatalf("order %d differs between managers with one seed: %v vs %v", i, x, y)
		}
	}
}

func TestRandomOrderHoldsEveryBackendOnce(t *testing.T) {
	bs := addrs(8)
	m, _ := newTestManager(t, Random, bs...)
	for range 100 {
		o := m.Order("r", bs, IntentLogin)
		slices.Sort(o)
		if !slices.Equal(o, bs) {
			t.Fatalf("order %v is not a permutation of %v", o, bs)
		}
	}
}

func TestSequentialKeepsConfigOrder(t *testing.T) {
	tests := []struct {
		name string
		key  string
	}{
		{"sequential route", "r"},
		{"unknown route falls back to sequential", "no-such-route"},
	}
	bs := []string{"c", "a", "b"}
	m, _ := newTestManager(t, Sequential, bs...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 3 {
				if got := m.Order(tt.key, bs, IntentLogin); !slices.Equal(got, bs) {
					t.Fatalf("Order = %v, want config order %v", got, bs)
				}
			}
		})
	}
}
