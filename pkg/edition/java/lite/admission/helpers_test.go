package admission

import (
	"net/netip"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// newClock is an injected time source the tests move by hand.
func newClock() *mctest.Clock { return mctest.NewClock(time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)) }

func addr(t testing.TB, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func prefixes(t testing.TB, ss ...string) []netip.Prefix {
	t.Helper()
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = p
	}
	return out
}

// limit is an enabled quota with a generous table.
func limit(rate float64, burst int) Limit {
	return Limit{Enabled: true, Rate: rate, Burst: burst, MaxEntries: 1000}
}
