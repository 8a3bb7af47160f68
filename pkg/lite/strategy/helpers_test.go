package strategy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// epoch is the virtual clock's start; any fixed instant works.
var epoch = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// newClock is a virtual clock that moves only when a test advances it.
func newClock() *mctest.Clock { return mctest.NewClock(epoch) }

// scriptProber answers probes from a per-address function and counts them.
type scriptProber struct {
	mu     sync.Mutex
	calls  map[string]int
	answer func(addr string, call int) (Report, error)
}

func (p *scriptProber) Probe(ctx context.Context, addr string) (Report, error) {
	p.mu.Lock()
	if p.calls == nil {
		p.calls = map[string]int{}
	}
	p.calls[addr]++
	n := p.calls[addr]
	p.mu.Unlock()
	return p.answer(addr, n)
}

func (p *scriptProber) count(addr string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[addr]
}

var errRefused = errors.New("connection refused")

// newTestManager builds a manager on a virtual clock with one route.
func newTestManager(t testing.TB, name Name, backends ...string) (*Manager, *mctest.Clock) {
	t.Helper()
	clk := newClock()
	m := NewManager(Options{Seed: 42, Now: clk.Now})
	m.SetRoutes([]Route{{Key: "r", Strategy: name, Backends: backends}})
	return m, clk
}

// addrs returns n backend addresses b0..b(n-1).
func addrs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("b%d", i)
	}
	return out
}

// state returns addr's snapshot entry.
func state(t testing.TB, m *Manager, addr string) BackendState {
	t.Helper()
	for _, s := range m.Snapshot() {
		if s.Addr == addr {
			return s
		}
	}
	t.Fatalf("backend %s not in snapshot", addr)
	return BackendState{}
}

// join places one player on addr: an attempt whose first byte arrived.
func join(m *Manager, addr string) *Lease {
	l := m.Reserve(addr)
	l.Settle(time.Millisecond, nil)
	return l
}

// serve records one player served by addr who has left again.
func serve(m *Manager, addr string) { join(m, addr).Release() }

// fail feeds n dial failures for addr.
func fail(m *Manager, addr string, n int) {
	for range n {
		m.ObserveDial(addr, 0, errRefused)
	}
}

// firsts counts which backend comes first over n login orders; with
// reserve the player is counted on it (and kept).
func firsts(m *Manager, key string, backends []string, n int, reserve bool) map[string]int {
	got := map[string]int{}
	for range n {
		o := m.Order(key, backends, IntentLogin)
		got[o[0]]++
		if reserve {
			// No first-byte time: the test's own latencies stand.
			m.Reserve(o[0]).Settle(0, nil)
		}
	}
	return got
}

// wantEvenFirsts fails unless each of backends backends of strategy name comes
// first in n login orders within 10% of an equal share; what says under which
// condition.
func wantEvenFirsts(t *testing.T, name Name, backends, n int, what string) {
	t.Helper()
	bs := addrs(backends)
	m, _ := newTestManager(t, name, bs...)
	got := firsts(m, "r", bs, n, false)
	share := n / backends
	for _, b := range bs {
		if got[b] < share-share/10 || got[b] > share+share/10 {
			t.Fatalf("%s%s came first %d of %d times, want about %d: %v", what, b, got[b], n, share, got)
		}
	}
}
