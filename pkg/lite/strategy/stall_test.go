package strategy

import (
	"sync/atomic"
	"testing"
	"time"
)

// stallWorld is two backends that have each answered a login in 300ms, and a
// login waiting on b since now.
func stallWorld(t *testing.T) (*Manager, interface{ Advance(time.Duration) }, *atomic.Int32, func()) {
	t.Helper()
	m, clk := newTestManager(t, LeastConnections, "a", "b")
	m.Reserve("a").Settle(300*ms, nil)
	m.Reserve("b").Settle(300*ms, nil)
	var gaveUp atomic.Int32
	m.Reserve("b") // the waiting login's attempt
	stop := m.OnStall("b", func() { gaveUp.Add(1) })
	return m, clk, &gaveUp, stop
}

// Issue 32, item 2: a login waiting on a backend gives up once the fleet has
// answered attempts reserved one of the backend's first-byte times after it, and
// not before.
func TestWaitingLoginGivesUpOnceTheFleetOutrunsItsBackend(t *testing.T) {
	m, clk, gaveUp, stop := stallWorld(t)
	defer stop()
	clk.Advance(200 * ms)
	l := m.Reserve("a")
	clk.Advance(300 * ms)
	l.Settle(300*ms, nil) // the fleet is 200ms ahead of b's oldest: within its pace
	if gaveUp.Load() != 0 {
		t.Fatal("gave up while the fleet was less than b's first-byte time ahead")
	}
	clk.Advance(200 * ms)
	l = m.Reserve("a")
	clk.Advance(300 * ms)
	l.Settle(300*ms, nil) // reserved 700ms after b's oldest
	if gaveUp.Load() != 1 {
		t.Fatalf("gave up %d times once the fleet was 700ms ahead of b's 300ms pace, want once", gaveUp.Load())
	}
	clk.Advance(100 * ms)
	m.Reserve("a").Settle(300*ms, nil)
	if gaveUp.Load() != 1 {
		t.Fatal("a watch fired twice")
	}
}

// A stopped watch never fires, and a backend that never answered is given no
// pace to fall behind.
func TestStoppedWatchAndUnheardBackendNeverGiveUp(t *testing.T) {
	m, clk, gaveUp, stop := stallWorld(t)
	stop()
	m.Reserve("c")
	var unheard atomic.Int32
	defer m.OnStall("c", func() { unheard.Add(1) })()
	clk.Advance(time.Second)
	l := m.Reserve("a")
	clk.Advance(300 * ms)
	l.Settle(300*ms, nil)
	if gaveUp.Load() != 0 || unheard.Load() != 0 {
		t.Fatalf("stopped watch fired %d times, the never-answered backend's %d, want 0 and 0", gaveUp.Load(), unheard.Load())
	}
}
