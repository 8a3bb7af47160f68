package admission

import (
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// evictScan is how many of the least recently used buckets a new address may look at
// for one it can replace.
const evictScan = 8

// bucketTable holds one token bucket per address block, at most max of them, in least
// recently used order.
//
// A table that simply evicted its oldest entry would let anyone with many addresses
// (an IPv6 /48 holds 65 536 /64 blocks) push out the bucket of a flooder it is
// throttling, giving it a fresh burst, for the price of a few connects. So a bucket is
// only ever replaced once it has refilled completely: a full bucket carries no
// information, it is exactly what a new address would get. When every candidate still
// holds state, the new address is not inserted but shares one overflow bucket with all
// other addresses the table has no room for. A spray then throttles itself, and the
// state of the addresses already known survives it.
type bucketTable struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	max     int
	entries map[netip.Prefix]*bucket
	// head is the most recently used bucket, tail the least; the list is circular-free.
	head, tail *bucket
	overflow   *rate.Limiter

	evicted, overflowed uint64
}

type bucket struct {
	key        netip.Prefix
	lim        *rate.Limiter
	prev, next *bucket
}

func newBucketTable(l Limit) *bucketTable {
	t := &bucketTable{entries: make(map[netip.Prefix]*bucket)}
	t.overflow = rate.NewLimiter(rate.Limit(l.Rate), l.Burst)
	t.apply(l, time.Time{})
	return t
}

// allow takes one token from key's bucket at now.
func (t *bucketTable) allow(key netip.Prefix, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limiterLocked(key, now).AllowN(now, 1)
}

// peek reports whether key's bucket holds a token at now, taking nothing and
// inserting nothing: a key the table does not hold would get a full bucket, or share
// the overflow bucket when the table is full.
func (t *bucketTable) peek(key netip.Prefix, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	lim := t.overflow
	if b, ok := t.entries[key]; ok {
		lim = b.lim
	} else if len(t.entries) < t.max {
		return true
	}
	// rate.Limiter admits a token less than a nanosecond of refill away, which float
	// rounding can leave just under 1.
	return lim.TokensAt(now) >= 1-1e-9
}

// wait is how long until key's bucket holds a whole token (0 if it does now).
func (t *bucketTable) wait(key netip.Prefix, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	lim := t.overflow
	if b, ok := t.entries[key]; ok {
		lim = b.lim
	}
	missing := 1 - lim.TokensAt(now)
	if missing <= 0 || t.limit <= 0 {
		return 0
	}
	return time.Duration(missing / float64(t.limit) * float64(time.Second))
}

// limiterLocked returns key's limiter, making it the most recently used, or
// inserting it, or the overflow limiter when there is no room.
func (t *bucketTable) limiterLocked(key netip.Prefix, now time.Time) *rate.Limiter {
	if b, ok := t.entries[key]; ok {
		t.moveToFront(b)
		return b.lim
	}
	b := t.room(now)
	if b == nil {
		t.overflowed++
		return t.overflow
	}
	b.key = key
	t.entries[key] = b
	t.pushFront(b)
	return b.lim
}

// room returns an unlinked bucket for a new key: a new one while the table has space,
// else a full bucket taken from the least recently used end, else nil.
func (t *bucketTable) room(now time.Time) *bucket {
	if len(t.entries) < t.max {
		return &bucket{lim: rate.NewLimiter(t.limit, t.burst)}
	}
	b := t.tail
	for i := 0; i < evictScan && b != nil; i, b = i+1, b.prev {
		if b.lim.TokensAt(now) >= float64(t.burst) {
			// A full bucket is as good as new: reuse it as it is.
			t.unlink(b)
			delete(t.entries, b.key)
			t.evicted++
			return b
		}
	}
	return nil
}

// apply sets a new limit on the table and every bucket in it, keeping their tokens,
// and trims the table when max shrank.
func (t *bucketTable) apply(l Limit, now time.Time) {
	t.limit, t.burst, t.max = rate.Limit(l.Rate), l.Burst, max(1, l.MaxEntries)
	for b := t.head; b != nil; b = b.next {
		b.lim.SetLimitAt(now, t.limit)
		b.lim.SetBurstAt(now, t.burst)
	}
	t.overflow.SetLimitAt(now, t.limit)
	t.overflow.SetBurstAt(now, t.burst)
	for len(t.entries) > t.max {
		b := t.tail
		t.unlink(b)
		delete(t.entries, b.key)
		t.evicted++
	}
}

func (t *bucketTable) update(l Limit, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.apply(l, now)
}

func (t *bucketTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

func (t *bucketTable) pushFront(b *bucket) {
	b.prev, b.next = nil, t.head
	if t.head != nil {
		t.head.prev = b
	}
	t.head = b
	if t.tail == nil {
		t.tail = b
	}
}

func (t *bucketTable) unlink(b *bucket) {
	if b.prev != nil {
		b.prev.next = b.next
	} else {
		t.head = b.next
	}
	if b.next != nil {
		b.next.prev = b.prev
	} else {
		t.tail = b.prev
	}
	b.prev, b.next = nil, nil
}

func (t *bucketTable) moveToFront(b *bucket) {
	if t.head == b {
		return
	}
	t.unlink(b)
	t.pushFront(b)
}
