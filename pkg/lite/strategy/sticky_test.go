package strategy

import (
	"fmt"
	"net/netip"
	"testing"
)

// stickyPlace logs player in on route r over bs and returns where they landed
// and the lease that counts them.
func stickyPlace(m *Manager, bs []string, player string) (string, *Lease) {
	o := m.AppendOrderFor(nil, "r", bs, IntentLogin, "n:"+player)
	return o[0], join(m, o[0])
}

// stickyFleet places n players on a sticky route over bs, all staying.
func stickyFleet(t *testing.T, bs []string, n int) (*Manager, map[string]string, map[string]*Lease) {
	t.Helper()
	m, _ := newTestManager(t, Sticky, bs...)
	home, leases := map[string]string{}, map[string]*Lease{}
	for i := range n {
		p := fmt.Sprintf("player%d", i)
		home[p], leases[p] = stickyPlace(m, bs, p)
	}
	return m, home, leases
}

// Issue 32, item 11: a player who reconnects returns to the backend of their
// previous session while it is up: 95% or more, with every other player staying.
func TestStickyReturningPlayersComeBack(t *testing.T) {
	bs := addrs(4)
	m, home, leases := stickyFleet(t, bs, 800)
	back := 0
	for p, l := range leases {
		l.Release()
		got, nl := stickyPlace(m, bs, p)
		leases[p] = nl
		if got == home[p] {
			back++
		}
	}
	t.Logf("%d of %d reconnects returned to their backend", back, len(home))
	if back*100 < 95*len(home) {
		t.Fatalf("%d of %d reconnects returned to their backend, want at least 95%%", back, len(home))
	}
}

// Adding a fifth backend to four moves at most 25% of the players (those whose
// key now scores highest on it), and the load stays within the bound.
func TestStickyAddedBackendMovesOnlyItsShare(t *testing.T) {
	four := addrs(4)
	_, home, _ := stickyFleet(t, four, 1000)
	five := addrs(5)
	m, _ := newTestManager(t, Sticky, five...)
	moved := 0
	for p := range home {
		if got, _ := stickyPlace(m, five, p); got != home[p] {
			moved++
		}
	}
	t.Logf("adding a fifth backend moved %d of %d players", moved, len(home))
	if moved*100 > 25*len(home) {
		t.Fatalf("adding a fifth backend moved %d of %d players, want at most 25%%", moved, len(home))
	}
	most := int64(0)
	for _, s := range m.Snapshot() {
		most = max(most, s.Active)
	}
	t.Logf("busiest backend: %d players, fair %d", most, len(home)/5)
	if fair := float64(len(home)) / 5; float64(most) > StickyBound*fair+1 {
		t.Fatalf("busiest backend holds %d players, fair %.0f: over the %.2f bound", most, fair, StickyBound)
	}
}

// A backend that goes away moves its players, and of the others only the few
// the load bound sends elsewhere while the moved ones fill the rest.
func TestStickyRemovedBackendMovesLittleElse(t *testing.T) {
	bs := addrs(4)
	_, home, _ := stickyFleet(t, bs, 400)
	m, _ := newTestManager(t, Sticky, bs[:3]...)
	stayed, moved := 0, 0
	for p, h := range home {
		got, _ := stickyPlace(m, bs[:3], p)
		if h != bs[3] {
			stayed++
			if got != h {
				moved++
			}
		}
	}
	t.Logf("%d of the %d players whose backend stayed moved", moved, stayed)
	if moved*100 > 5*stayed {
		t.Fatalf("%d of the %d players whose backend stayed moved, want at most 5%%", moved, stayed)
	}
}

func TestPlayerKeyPrefersUUIDThenNameThenAddress(t *testing.T) {
	a1, a2 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	id := [16]byte{1}
	if a, b := (PlayerIdentity{"Steve", id}).Key(a1), (PlayerIdentity{"alex", id}).Key(a2); a != b {
		t.Fatalf("one UUID, two keys: %q %q", a, b)
	}
	if a, b := (PlayerIdentity{Name: "Steve"}).Key(a1), (PlayerIdentity{Name: "steve"}).Key(a2); a != b {
		t.Fatalf("one name in two cases, two keys: %q %q", a, b)
	}
	if (PlayerIdentity{}).Key(a1) == (PlayerIdentity{}).Key(a2) {
		t.Fatal("two addresses, one key")
	}
}
