package antibot

// evictScan is how many of the least recently used entries a new key may look at
// for one it can replace.
const evictScan = 8

// table is a bounded map in least recently used order. Its caller holds the lock.
type table[K comparable, V any] struct {
	max     int
	entries map[K]*node[K, V]
	// head is the most recently used entry, tail the least.
	head, tail *node[K, V]
}

type node[K comparable, V any] struct {
	key        K
	val        V
	prev, next *node[K, V]
}

func newTable[K comparable, V any](max int) *table[K, V] {
	return &table[K, V]{max: max, entries: make(map[K]*node[K, V])}
}

// get returns k's value, now the most recently used; nil if absent.
func (t *table[K, V]) get(k K) *V {
	n := t.entries[k]
	if n == nil {
		return nil
	}
	t.unlink(n)
	t.pushFront(n)
	return &n.val
}

// add inserts k with the zero value. When the table is full, it first replaces one
// of the evictScan least recently used entries that spare says carries nothing;
// if none does, the oldest when force is set, else nothing is inserted (nil).
func (t *table[K, V]) add(k K, spare func(*V) bool, force bool) *V {
	if len(t.entries) >= t.max {
		victim := t.tail
		for n, i := t.tail, 0; n != nil && i < evictScan; n, i = n.prev, i+1 {
			if spare(&n.val) {
				victim = n
				break
			}
		}
		if victim == nil || (!force && !spare(&victim.val)) {
			return nil
		}
		t.remove(victim)
	}
	n := &node[K, V]{key: k}
	t.entries[k] = n
	t.pushFront(n)
	return &n.val
}

func (t *table[K, V]) remove(n *node[K, V]) {
	t.unlink(n)
	delete(t.entries, n.key)
}

func (t *table[K, V]) len() int { return len(t.entries) }

func (t *table[K, V]) unlink(n *node[K, V]) {
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		t.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		t.tail = n.prev
	}
	n.prev, n.next = nil, nil
}

func (t *table[K, V]) pushFront(n *node[K, V]) {
	n.next = t.head
	if t.head != nil {
		t.head.prev = n
	}
	t.head = n
	if t.tail == nil {
		t.tail = n
	}
}
