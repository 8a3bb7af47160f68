package antibot

import "container/list"

// evictScan is how many of the least recently used entries a new key may look at
// for one it can replace.
const evictScan = 8

// table is a bounded map in least recently used order (front: most recent). Its
// caller holds the lock.
type table[K comparable, V any] struct {
	max     int
	entries map[K]*list.Element // of *item[K, V]
	order   list.List
}

type item[K comparable, V any] struct {
	key K
	val V
}

func newTable[K comparable, V any](max int) *table[K, V] {
	return &table[K, V]{max: max, entries: make(map[K]*list.Element)}
}

// get returns k's value, now the most recently used; nil if absent.
func (t *table[K, V]) get(k K) *V {
	e := t.entries[k]
	if e == nil {
		return nil
	}
	t.order.MoveToFront(e)
	return &e.Value.(*item[K, V]).val
}

// add inserts k with the zero value. When the table is full, it first replaces one
// of the evictScan least recently used entries that spare says carries nothing;
// if none does, the oldest when force is set, else nothing is inserted (nil).
func (t *table[K, V]) add(k K, spare func(*V) bool, force bool) *V {
	if len(t.entries) >= t.max {
		victim := t.order.Back()
		for e, i := victim, 0; e != nil && i < evictScan; e, i = e.Prev(), i+1 {
			if spare(&e.Value.(*item[K, V]).val) {
				victim = e
				break
			}
		}
		if victim == nil || (!force && !spare(&victim.Value.(*item[K, V]).val)) {
			return nil
		}
		delete(t.entries, t.order.Remove(victim).(*item[K, V]).key)
	}
	it := &item[K, V]{key: k}
	t.entries[k] = t.order.PushFront(it)
	return &it.val
}

func (t *table[K, V]) len() int { return len(t.entries) }
