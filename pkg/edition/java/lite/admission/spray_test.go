package admission

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// sprayRun is a scaled address spray against the logins quota (the default 0.4/s,
// burst 3, on a table of 100 entries): for 60 s an attacker brings 20 fresh /24s a
// second, all from one /16, and spends each one's burst, while first-time players from
// other /16s log in once every 500 ms. It returns how many players came and how many
// were refused.
func sprayRun(t *testing.T, attacker func(i int) netip.Addr, player func(r *rand.Rand) netip.Addr) (players, refused int) {
	t.Helper()
	clk := newClock()
	c := New(Config{Logins: Limit{Enabled: true, Rate: 0.4, Burst: 3, MaxEntries: 100}}, Options{Now: clk.Now})
	r := rand.New(rand.NewPCG(20, 7))
	const tick = 50 * time.Millisecond // one fresh /24 per tick: 20 a second
	for i := range int(60 * time.Second / tick) {
		a := attacker(i)
		for range 4 {
			_ = c.AdmitIntent(a, IntentLogin)
		}
		if i%10 == 0 {
			players++
			err := c.AdmitIntent(player(r), IntentLogin)
			switch {
			case errors.Is(err, ErrRateLimited):
				refused++
			case err != nil:
				t.Fatalf("AdmitIntent: %v", err)
			}
		}
		clk.Advance(tick)
	}
	return players, refused
}

// Regression: once the logins table was full, every new block shared one overflow
// bucket, and an attacker adding fresh /24s kept it empty, so about half of the
// first-time players from other networks were refused.
func TestAddressSprayDoesNotLockOutNewcomers(t *testing.T) {
	tests := []struct {
		name     string
		attacker func(i int) netip.Addr
		player   func(r *rand.Rand) netip.Addr
	}{
		{
			name: "IPv4 /24s from one /16",
			attacker: func(i int) netip.Addr {
				return netip.AddrFrom4([4]byte{198, 18, byte(i), byte(1 + i%250)})
			},
			player: func(r *rand.Rand) netip.Addr {
				for {
					b := [4]byte{byte(1 + r.IntN(222)), byte(r.IntN(256)), byte(r.IntN(256)), byte(1 + r.IntN(254))}
					if b[0] != 198 || b[1] != 18 {
						return netip.AddrFrom4(b)
					}
				}
			},
		},
		{
			name: "IPv6 /64s from one /48",
			attacker: func(i int) netip.Addr {
				return netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0xa7, 0x7a, byte(i >> 8), byte(i), 15: 1})
			},
			player: func(r *rand.Rand) netip.Addr {
				var b [16]byte
				b[0], b[1] = 0x2a, 0x02
				for j := 2; j < 8; j++ {
					b[j] = byte(r.IntN(256))
				}
				b[15] = 1
				return netip.AddrFrom16(b)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			players, refused := sprayRun(t, tc.attacker, tc.player)
			share := float64(refused) / float64(players)
			t.Logf("%d of %d first-time players refused (%.1f%%)", refused, players, 100*share)
			if share > 0.01 {
				t.Fatalf("%d of %d first-time players refused (%.1f%%), want at most 1%%", refused, players, 100*share)
			}
		})
	}
}
