package admission

import (
	"net/netip"
	"testing"
	"time"
)

// FuzzBucketTable runs an arbitrary sequence of operations on a small table and checks
// its invariants after each: the map and the list agree, the size stays within max,
// and a spent bucket is never replaced while it still holds state.
func FuzzBucketTable(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x80, 0x41, 1, 1, 1, 0xC3})
	f.Add([]byte{0xFF, 0xFE, 0x00, 0x00, 0x00, 0x7F})
	f.Fuzz(func(t *testing.T, ops []byte) {
		clk := newClock()
		l := Limit{Enabled: true, Rate: 2, Burst: 2, MaxEntries: 4}
		tbl := newBucketTable(l)
		for _, op := range ops {
			switch op >> 6 {
			case 0, 1: // take a token for one of 128 blocks
				key := v4Block(int(op & 0x7F))
				spent := false
				if b, ok := tbl.blocks.entries[key]; ok {
					// rate.Limiter admits when the token is less than a nanosecond of
					// refill away, so "spent" leaves room for float rounding.
					spent = b.lim.TokensAt(clk.Now()) < 0.999
				}
				got := tbl.allow(key, clk.Now())
				if spent && got {
					t.Fatalf("block %v with a spent bucket admitted", key)
				}
			case 2: // time passes
				clk.Advance(time.Duration(op&0x3F) * 50 * time.Millisecond)
			case 3: // reload with another size or burst
				l.MaxEntries = int(op&0x07) + 1
				l.Burst = int(op>>3&0x07) + 1
				tbl.update(l, clk.Now())
			}
			checkTable(t, tbl)
		}
	})
}

func checkTable(t *testing.T, tbl *bucketTable) {
	t.Helper()
	checkLRU(t, "blocks", &tbl.blocks)
	checkLRU(t, "overflow", &tbl.wide)
}

func checkLRU(t *testing.T, name string, l *lru) {
	t.Helper()
	if len(l.entries) > l.max {
		t.Fatalf("%s: %d entries, max %d", name, len(l.entries), l.max)
	}
	n := 0
	var prev *bucket
	for b := l.head; b != nil; prev, b = b, b.next {
		if b.prev != prev || l.entries[b.key] != b {
			t.Fatalf("%s: list and map disagree at %v", name, b.key)
		}
		n++
	}
	if n != len(l.entries) || l.tail != prev {
		t.Fatalf("%s: list holds %d, map %d, tail consistent %v", name, n, len(l.entries), l.tail == prev)
	}
}

// FuzzPrefixSet compares the lookup by prefix length with a plain scan.
func FuzzPrefixSet(f *testing.F) {
	f.Add([]byte{10, 0, 0, 0, 8, 192, 0, 2, 7, 32}, []byte{10, 1, 2, 3}, false)
	f.Add([]byte{0x20, 0x01, 0x0d, 0xb8, 32}, []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, true)
	f.Fuzz(func(t *testing.T, raw, probe []byte, v6 bool) {
		var list []netip.Prefix
		size := 4
		if v6 {
			size = 16
		}
		for len(raw) >= size+1 {
			a, _ := netip.AddrFromSlice(raw[:size])
			p, err := a.Prefix(int(raw[size]) % (a.BitLen() + 1))
			if err == nil {
				list = append(list, p)
			}
			raw = raw[size+1:]
		}
		a, ok := netip.AddrFromSlice(probe)
		if !ok {
			return
		}
		want := false
		for _, p := range list {
			if p.Contains(a.Unmap()) || p.Contains(a) {
				want = true
			}
		}
		if got := newPrefixSet(list).contains(a); got != want {
			t.Fatalf("contains(%v) = %v, scan says %v for %v", a, got, want, list)
		}
	})
}
