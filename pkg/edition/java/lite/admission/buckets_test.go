package admission

import (
	"net/netip"
	"testing"
	"time"
)

func v6Block(i int) netip.Prefix {
	a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0xee, 0xee, byte(i >> 8), byte(i)})
	return netip.PrefixFrom(a, 64)
}

func v4Block(i int) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 0}), 24)
}

// A flooder that has spent its bucket must not get a fresh one because someone with
// many addresses (one IPv6 /48) pushed it out of the table.
func TestSprayCannotEvictThrottledState(t *testing.T) {
	clk := newClock()
	tbl := newBucketTable(Limit{Enabled: true, Rate: 1, Burst: 2, MaxEntries: 4})
	flooder := v4Block(1)
	for range 2 {
		if !tbl.allow(flooder, clk.Now()) {
			t.Fatal("burst refused")
		}
	}
	if tbl.allow(flooder, clk.Now()) {
		t.Fatal("flooder not throttled")
	}
	sprayAdmitted := 0
	for i := range 10_000 {
		if tbl.allow(v6Block(i), clk.Now()) {
			sprayAdmitted++
		}
	}
	if tbl.allow(flooder, clk.Now()) {
		t.Fatal("the spray evicted the flooder's empty bucket and gave it a new burst")
	}
	// Three slots were free; once they are taken (and hold state) the rest of the spray
	// shares one overflow bucket of burst 2.
	if sprayAdmitted != 3+2 {
		t.Fatalf("spray admitted %d, want 5 (3 free slots + the overflow burst)", sprayAdmitted)
	}
	if n := tbl.len(); n != 4 {
		t.Fatalf("table holds %d entries, want its max 4", n)
	}
}

// A bucket that has refilled completely carries nothing: replacing it loses no state,
// so new addresses get their own buckets again once the spray stops.
func TestRefilledBucketsAreReplaced(t *testing.T) {
	clk := newClock()
	tbl := newBucketTable(Limit{Enabled: true, Rate: 10, Burst: 1, MaxEntries: 3})
	for i := range 3 {
		tbl.allow(v4Block(i), clk.Now())
	}
	clk.Advance(100 * time.Millisecond) // every bucket is full again
	for i := 3; i < 9; i++ {
		if !tbl.allow(v4Block(i), clk.Now()) {
			t.Fatalf("new block %d refused although full buckets could be replaced", i)
		}
		clk.Advance(100 * time.Millisecond)
	}
	if tbl.overflowed != 0 || tbl.evicted != 6 || tbl.len() != 3 {
		t.Fatalf("overflowed %d, evicted %d, len %d; want 0, 6, 3", tbl.overflowed, tbl.evicted, tbl.len())
	}
	// The most recent three are the ones kept.
	for i := 6; i < 9; i++ {
		if _, ok := tbl.blocks.entries[v4Block(i)]; !ok {
			t.Fatalf("block %d missing; LRU order broken", i)
		}
	}
}

func TestRecentlyUsedBucketIsNotTheOneReplaced(t *testing.T) {
	clk := newClock()
	tbl := newBucketTable(Limit{Enabled: true, Rate: 1000, Burst: 1, MaxEntries: 2})
	a, b, c := v4Block(1), v4Block(2), v4Block(3)
	tbl.allow(a, clk.Now())
	tbl.allow(b, clk.Now())
	clk.Advance(time.Second)
	tbl.allow(a, clk.Now()) // a is now the most recently used
	clk.Advance(time.Second)
	tbl.allow(c, clk.Now())
	if _, ok := tbl.blocks.entries[a]; !ok {
		t.Fatal("the recently used bucket was replaced")
	}
	if _, ok := tbl.blocks.entries[b]; ok {
		t.Fatal("the least recently used bucket survived")
	}
}

func TestShrinkingMaxEntriesTrims(t *testing.T) {
	clk := newClock()
	tbl := newBucketTable(Limit{Enabled: true, Rate: 1, Burst: 1, MaxEntries: 10})
	for i := range 10 {
		tbl.allow(v4Block(i), clk.Now())
	}
	tbl.update(Limit{Enabled: true, Rate: 1, Burst: 1, MaxEntries: 4}, clk.Now())
	if n := tbl.len(); n != 4 {
		t.Fatalf("len after shrink = %d, want 4", n)
	}
	for i := 6; i < 10; i++ {
		if tbl.allow(v4Block(i), clk.Now()) {
			t.Fatalf("block %d kept its entry but lost its spent state", i)
		}
	}
	// Walk the list both ways: it must agree with the map.
	n, last := 0, (*bucket)(nil)
	for b := tbl.blocks.head; b != nil; last, b = b, b.next {
		n++
	}
	if n != 4 || last != tbl.blocks.tail {
		t.Fatalf("list has %d entries, tail consistent %v", n, last == tbl.blocks.tail)
	}
}

// Overflow buckets are bounded too: a spray over more wide networks than the overflow
// table holds ends in the one shared bucket, and memory stays at max + max/4.
func TestOverflowTablesStayBounded(t *testing.T) {
	clk := newClock()
	tbl := newBucketTable(Limit{Enabled: true, Rate: 1, Burst: 2, MaxEntries: 8})
	admitted := 0
	for i := range 10_000 {
		// Every block in its own /16, each spending its burst.
		key := netip.PrefixFrom(netip.AddrFrom4([4]byte{10 + byte(i>>16), byte(i >> 8), byte(i), 0}), 24)
		for range 2 {
			if tbl.allow(key, clk.Now()) {
				admitted++
			}
		}
	}
	if n, w := len(tbl.blocks.entries), len(tbl.wide.entries); n != 8 || w != 2 {
		t.Fatalf("blocks %d, overflow %d; want 8 and 2", n, w)
	}
	// 8 blocks and 2 overflow networks spend their bursts, then the shared bucket its own.
	if want := 8*2 + 2*2 + 2; admitted != want {
		t.Fatalf("admitted %d, want %d", admitted, want)
	}
}
