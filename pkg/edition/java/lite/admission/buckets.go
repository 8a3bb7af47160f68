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
// information, it is exactly what a new address would get.
//
// When every candidate still holds state, the new block is not inserted. It shares an
// overflow bucket with the other blocks of its wider network (IPv4 /16, IPv6 /48; see
// wideKey), held in a second table of the same kind, so a spray of fresh blocks from
// one network drains only that network's overflow bucket and newcomers from elsewhere
// still get a burst. Only when the overflow table is full of buckets that hold state
// too does a block fall back to one bucket shared by everyone left. A spray then
// throttles itself, and the state of the addresses already known survives it; memory
// stays bounded by max plus max/4 buckets.
type bucketTable struct {
	mu     sync.Mutex
	limit  rate.Limit
	burst  int
	blocks lru // keyed by blockKey
	wide   lru // overflow buckets, keyed by wideKey
	shared *rate.Limiter

	evicted, overflowed uint64
}

// lru is a bounded set of buckets in least recently used order.
type lru struct {
	max     int
	entries map[netip.Prefix]*bucket
	// head is the most recently used bucket, tail the least.
	head, tail *bucket
}

type bucket struct {
	key        netip.Prefix
	lim        *rate.Limiter
	prev, next *bucket
}

func newBucketTable(l Limit) *bucketTable {
	t := &bucketTable{
		blocks: lru{entries: make(map[netip.Prefix]*bucket)},
		wide:   lru{entries: make(map[netip.Prefix]*bucket)},
	}
	t.shared = rate.NewLimiter(rate.Limit(l.Rate), l.Burst)
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
// inserting nothing: a key the table does not hold would get a full bucket while there
// is room, else the overflow bucket of its wider network, else the shared one.
func (t *bucketTable) peek(key netip.Prefix, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	lim := t.findLocked(key)
	if lim == nil {
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
	lim := t.findLocked(key)
	if lim == nil || t.limit <= 0 {
		return 0
	}
	missing := 1 - lim.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / float64(t.limit) * float64(time.Second))
}

// findLocked returns the limiter key would be charged to without changing the table,
// or nil when it would get a new (full) bucket of its own. Full buckets that could be
// replaced are not looked for: peek then errs towards refusing, never towards a burst
// the table would not grant.
func (t *bucketTable) findLocked(key netip.Prefix) *rate.Limiter {
	if b, ok := t.blocks.entries[key]; ok {
		return b.lim
	}
	if len(t.blocks.entries) < t.blocks.max {
		return nil
	}
	if b, ok := t.wide.entries[wideKey(key)]; ok {
		return b.lim
	}
	if len(t.wide.entries) < t.wide.max {
		return nil
	}
	return t.shared
}

// limiterLocked returns key's limiter, making it the most recently used, or
// inserting it, or an overflow limiter when there is no room.
func (t *bucketTable) limiterLocked(key netip.Prefix, now time.Time) *rate.Limiter {
	if lim := t.getOrInsert(&t.blocks, key, now); lim != nil {
		return lim
	}
	t.overflowed++
	if lim := t.getOrInsert(&t.wide, wideKey(key), now); lim != nil {
		return lim
	}
	return t.shared
}

// getOrInsert returns key's limiter in l, inserting a bucket for it when l has room
// or a full bucket to replace; nil when it has neither.
func (t *bucketTable) getOrInsert(l *lru, key netip.Prefix, now time.Time) *rate.Limiter {
	if b, ok := l.entries[key]; ok {
		l.moveToFront(b)
		return b.lim
	}
	b := t.room(l, now)
	if b == nil {
		return nil
	}
	b.key = key
	l.entries[key] = b
	l.pushFront(b)
	return b.lim
}

// room returns an unlinked bucket for a new key of l: a new one while l has space,
// else a full bucket taken from the least recently used end, else nil.
func (t *bucketTable) room(l *lru, now time.Time) *bucket {
	if len(l.entries) < l.max {
		return &bucket{lim: rate.NewLimiter(t.limit, t.burst)}
	}
	b := l.tail
	for i := 0; i < evictScan && b != nil; i, b = i+1, b.prev {
		if b.lim.TokensAt(now) >= float64(t.burst) {
			// A full bucket is as good as new: reuse it as it is.
			l.remove(b)
			t.evicted++
			return b
		}
	}
	return nil
}

// apply sets a new limit on the table and every bucket in it, keeping their tokens,
// and trims the table when max shrank.
func (t *bucketTable) apply(l Limit, now time.Time) {
	t.limit, t.burst = rate.Limit(l.Rate), l.Burst
	t.blocks.max = max(1, l.MaxEntries)
	t.wide.max = max(1, t.blocks.max/4)
	for _, tbl := range []*lru{&t.blocks, &t.wide} {
		for b := tbl.head; b != nil; b = b.next {
			b.lim.SetLimitAt(now, t.limit)
			b.lim.SetBurstAt(now, t.burst)
		}
		for len(tbl.entries) > tbl.max {
			tbl.remove(tbl.tail)
			t.evicted++
		}
	}
	t.shared.SetLimitAt(now, t.limit)
	t.shared.SetBurstAt(now, t.burst)
}

func (t *bucketTable) update(l Limit, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.apply(l, now)
}

// len counts the per-block buckets (not the overflow ones).
func (t *bucketTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.blocks.entries)
}

func (l *lru) remove(b *bucket) {
	l.unlink(b)
	delete(l.entries, b.key)
}

func (l *lru) pushFront(b *bucket) {
	b.prev, b.next = nil, l.head
	if l.head != nil {
		l.head.prev = b
	}
	l.head = b
	if l.tail == nil {
		l.tail = b
	}
}

func (l *lru) unlink(b *bucket) {
	if b.prev != nil {
		b.prev.next = b.next
	} else {
		l.head = b.next
	}
	if b.next != nil {
		b.next.prev = b.prev
	} else {
		l.tail = b.prev
	}
	b.prev, b.next = nil, nil
}

func (l *lru) moveToFront(b *bucket) {
	if l.head == b {
		return
	}
	l.unlink(b)
	l.pushFront(b)
}
