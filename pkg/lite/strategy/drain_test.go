package strategy

import (
	"slices"
	"testing"
)

// An operator-drained backend is in no login order, whatever its health and the
// strategy, still in status orders, and explained as drained; undraining puts it back.
func TestDrainedBackendIsLeftOutOfLoginOrdersOnly(t *testing.T) {
	for _, name := range []Name{Sequential, RoundRobin, LeastConnections, P2C} {
		t.Run(string(name), func(t *testing.T) {
			m, _ := newTestManager(t, name, "a", "b", "c")
			backends := []string{"a", "b", "c"}
			m.SetDrained([]string{"a"})
			for range 50 {
				if got := m.Order("r", backends, IntentLogin); slices.Contains(got, "a") || len(got) != 2 {
					t.Fatalf("login order %v lists the drained backend", got)
				}
			}
			if got := m.Order("r", backends, IntentStatus); !slices.Contains(got, "a") {
				t.Fatalf("status order %v leaves out the drained backend", got)
			}
			v := m.Explain("r", backends, IntentLogin)[0]
			if !v.Drained || v.Eligible() || v.ReasonName() != "drained" || v.Why() != drainedText {
				t.Fatalf("verdict of the drained backend: %+v (%s)", v, v.Why())
			}
			m.SetDrained(nil)
			if got := m.Order("r", backends, IntentLogin); !slices.Contains(got, "a") {
				t.Fatalf("after undrain the login order is %v", got)
			}
			if v := m.Explain("r", backends, IntentLogin)[0]; v.Drained || v.ReasonName() == "drained" {
				t.Fatalf("after undrain: %+v", v)
			}
		})
	}
}
