package antibot_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/antibot"
	"go.minekube.com/gate/pkg/lite/players"
)

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"Steve", true}, {"abc", true}, {"a_1234567890_xyz", true},
		{"ab", false}, {"a_1234567890_xyz7", false}, {"Ste ve", false}, {"Stéve", false},
		{"", false}, {"bad-name", false}, {"name\x00", false},
	} {
		if got := antibot.ValidName(tc.name); got != tc.ok {
			t.Errorf("ValidName(%q) = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

// fixture is a Guard on a fake clock with settings a test fills in.
type fixture struct {
	clock       *mctest.Clock
	g           *antibot.Guard
	global, own antibot.Settings
	attack      antibot.AttackMode
}

func newFixture(o antibot.Options) *fixture {
	f := &fixture{clock: mctest.NewClock(time.Time{})}
	o.Now = f.clock.Now
	f.g = antibot.New(o)
	return f
}

// login checks name from addr on route "r" and returns the refusal reason.
func (f *fixture) login(name string, addr netip.Addr) (string, *players.Player) {
	p := &players.Player{Name: name}
	v := f.g.Check(antibot.Login{Player: p, Addr: addr, Route: "r", Global: &f.global, Own: &f.own, Attack: &f.attack})
	return v.Reason, p
}

var home = netip.MustParseAddr("192.0.2.1")

func TestInvalidNameRefusedOnlyWhereAsked(t *testing.T) {
	f := newFixture(antibot.Options{})
	if r, _ := f.login("x!", home); r != "" {
		t.Fatalf("without validNames: refused as %q", r)
	}
	f.own.ValidNames = true
	if r, _ := f.login("x!", home); r != antibot.InvalidName {
		t.Fatalf("with the route's validNames: got %q", r)
	}
}

func TestLoginRatePerNameIgnoresCaseAndRefills(t *testing.T) {
	f := newFixture(antibot.Options{})
	f.global.LoginRate = antibot.Rate{Ops: 0.5, Burst: 2}
	for i, name := range []string{"Steve", "STEVE"} {
		if r, _ := f.login(name, home); r != "" {
			t.Fatalf("login %d refused as %q", i, r)
		}
	}
	if r, _ := f.login("steve", home); r != antibot.NameRate {
		t.Fatalf("third login: got %q, want %s", r, antibot.NameRate)
	}
	if r, _ := f.login("Alex", home); r != "" {
		t.Fatalf("another name refused as %q", r)
	}
	f.clock.Advance(2 * time.Second) // one token at 0.5/s
	if r, _ := f.login("Steve", home); r != "" {
		t.Fatalf("after the refill: refused as %q", r)
	}
}

// A route's rate applies on top of the global one: it can only tighten.
func TestRouteRateTightensTheGlobal(t *testing.T) {
	f := newFixture(antibot.Options{})
	f.global.LoginRate = antibot.Rate{Ops: 1, Burst: 10}
	f.own.LoginRate = antibot.Rate{Ops: 1, Burst: 1}
	if r, _ := f.login("Steve", home); r != "" {
		t.Fatalf("first login refused as %q", r)
	}
	if r, _ := f.login("Steve", home); r != antibot.NameRate {
		t.Fatalf("second login: got %q, want the route's rate", r)
	}
}

func TestSessionsPerNameCappedUntilEnd(t *testing.T) {
	f := newFixture(antibot.Options{})
	f.global.MaxSessionsPerName = 1
	r, first := f.login("Steve", home)
	if r != "" {
		t.Fatalf("first session refused as %q", r)
	}
	if r, _ := f.login("steve", home); r != antibot.NameSessions {
		t.Fatalf("second session: got %q, want %s", r, antibot.NameSessions)
	}
	f.g.End(&players.Player{Name: "Steve"}) // not the holder: gives back nothing
	if r, _ := f.login("Steve", home); r != antibot.NameSessions {
		t.Fatalf("after a stranger's End: got %q", r)
	}
	f.g.End(first)
	f.g.End(first) // twice: still one session given back
	if r, _ := f.login("Steve", home); r != "" {
		t.Fatalf("after End: refused as %q", r)
	}
	if _, _, n := f.g.Sizes(); n != 1 {
		t.Fatalf("%d sessions counted, want 1", n)
	}
}

// A flood of unique names keeps the name table at its cap, and a name being
// throttled keeps its bucket through it (the flood cannot buy it a fresh burst).
func TestNameFloodStaysAtTheCap(t *testing.T) {
	const max = 64
	f := newFixture(antibot.Options{MaxNames: max})
	f.global.LoginRate = antibot.Rate{Ops: 0.01, Burst: 1}
	if r, _ := f.login("Victim", home); r != "" {
		t.Fatalf("Victim refused as %q", r)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 10 * max {
		f.login(fmt.Sprintf("bot%08x", rng.Uint32()), home)
		if names, _, _ := f.g.Sizes(); names > max {
			t.Fatalf("after %d names the table holds %d, cap %d", i, names, max)
		}
	}
	if names, _, _ := f.g.Sizes(); names != max {
		t.Fatalf("table holds %d names, want the cap %d", names, max)
	}
	if r, _ := f.login("Victim", home); r != antibot.NameRate {
		t.Fatalf("Victim after the flood: got %q, want still throttled", r)
	}
}
