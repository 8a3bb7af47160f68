package antibot_test

import (
	"net/netip"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/antibot"
)

// addr is the i-th address of 10.0.0.0/8.
func addr(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
}

func attackFixture(max int) *fixture {
	f := newFixture(antibot.Options{MaxAddrs: max})
	f.attack = antibot.AttackMode{Above: 10, Window: 10 * time.Second, Calm: time.Minute}
	return f
}

// flood sends n logins from new addresses, 1 ms apart, and returns how many passed.
func (f *fixture) flood(from, n int) int {
	passed := 0
	for i := range n {
		if r, _ := f.login("Bot", addr(from+i)); r == "" {
			passed++
		}
		f.clock.Advance(time.Millisecond)
	}
	return passed
}

func TestAttackModeAsksNewAddressesToReconnect(t *testing.T) {
	f := attackFixture(1000)
	known := netip.MustParseAddr("192.0.2.7")
	if r, _ := f.login("Steve", known); r != "" {
		t.Fatalf("before the attack: refused as %q", r)
	}
	// Steve took one of the burst of 10; the flood gets the rest and no more.
	if passed := f.flood(0, 100); passed != 9 {
		t.Fatalf("%d of 100 logins passed, want the 9 left of the burst", passed)
	}
	if r, _ := f.login("Steve", known); r != "" {
		t.Fatalf("an address verified before the attack was refused as %q", r)
	}
	player := netip.MustParseAddr("192.0.2.8")
	if r, _ := f.login("Alex", player); r != antibot.AttackReconnect {
		t.Fatalf("a new address: got %q, want %s", r, antibot.AttackReconnect)
	}
	f.clock.Advance(5 * time.Second)
	if r, _ := f.login("Alex", player); r != "" {
		t.Fatalf("the reconnect within the window was refused as %q", r)
	}
	late := netip.MustParseAddr("192.0.2.9")
	f.login("Late", late)
	f.clock.Advance(11 * time.Second)
	if r, _ := f.login("Late", late); r != antibot.AttackReconnect {
		t.Fatalf("a reconnect after the window: got %q, want refused again", r)
	}
	f.clock.Advance(5 * time.Second)
	if r, _ := f.login("Late", late); r != "" {
		t.Fatalf("the second reconnect within its window was refused as %q", r)
	}
}

func TestAttackModeEndsAfterCalm(t *testing.T) {
	f := attackFixture(1000)
	f.flood(0, 100)
	f.clock.Advance(59 * time.Second)
	if r, _ := f.login("Alex", addr(5000)); r != antibot.AttackReconnect {
		t.Fatalf("within calm: got %q", r)
	}
	f.clock.Advance(2 * time.Second)
	if r, _ := f.login("Alex", addr(5001)); r != "" {
		t.Fatalf("after calm: refused as %q", r)
	}
}

// A flood of unique addresses keeps the address table at its cap.
func TestAddressFloodStaysAtTheCap(t *testing.T) {
	const max = 50
	f := attackFixture(max)
	f.flood(0, 20*max)
	if _, addrs, _ := f.g.Sizes(); addrs != max {
		t.Fatalf("address table holds %d, want the cap %d", addrs, max)
	}
}
