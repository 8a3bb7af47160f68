package status

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Defaults applied by NewCache to zero Options fields.
const (
	DefaultMaxEntries  = 10000
	DefaultLastGoodFor = 5 * time.Minute
	// DefaultMaxBytes bounds the memory held by responses: 16 MiB, over a hundred of
	// the largest answers the protocol allows (wire.MaxStatusJSON), thousands of
	// typical ones.
	DefaultMaxBytes = 16 << 20
	// DefaultMissRate and DefaultMissBurst bound how many fetches the misses of one
	// route may start: a burst of 20, then 10 a second. Clients choose the keys, so
	// without it every new key would be one backend fetch.
	DefaultMissRate  = 10
	DefaultMissBurst = 20
)

// entryOverhead is what an entry costs besides its JSON and key strings (the entry,
// its list element, map slots), counted against MaxBytes.
const entryOverhead = 256

var (
	// ErrClosed is returned by Get on a miss after Close was called.
	ErrClosed = errors.New("status cache closed")
	// ErrEmptyResponse is returned when a fetch reports success but returns no bytes; an empty
	// body is never a valid Status Response, so it is treated as a failure and not cached.
	ErrEmptyResponse = errors.New("empty status response")
	// ErrFetchPanic wraps a panic raised by a fetch function. The fetch runs on a goroutine
	// owned by the cache, where an unrecovered panic would take the whole proxy down.
	ErrFetchPanic = errors.New("status fetch panicked")
	// ErrMissLimited is returned by Get on a miss when the route's miss budget
	// (MissRate, MissBurst) is spent: no fetch was started.
	ErrMissLimited = errors.New("status cache: too many misses for this route")
)

// Key identifies one cached response.
type Key struct {
	Route    string // route identity chosen by the proxy
	Backend  string // backend address
	Protocol int32  // client protocol version
	Host     string // cleaned virtual host the client asked for
}

// Options configures a Cache. Zero fields take the documented defaults.
type Options struct {
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// MaxEntries bounds the number of responses held, including those kept only for LastGood.
	// Clients choose protocol and host, so keys are attacker-controlled and the bound matters.
	// Default 10000; zero or negative means the default.
	MaxEntries int
	// LastGoodFor is how long after its fetch a response may still be returned by LastGood.
	// Default 5m; zero means the default, negative disables LastGood.
	LastGoodFor time.Duration
	// MaxBytes bounds the bytes held by responses (JSON, key and bookkeeping); the oldest
	// fetches are evicted first. A response larger than MaxBytes is served but not kept.
	// Default DefaultMaxBytes; zero or negative means the default.
	MaxBytes int64
	// MissRate (fetches a second) and MissBurst limit the fetches the misses of one
	// route (Key.Route) may start; a miss over the limit gets ErrMissLimited. Misses
	// that join a fetch in flight cost nothing. Defaults DefaultMissRate and
	// DefaultMissBurst; zero means the default, a negative MissRate turns the limit off.
	MissRate  float64
	MissBurst int
}

// groupKey is a Key without the backend: LastGood answers for a route from any backend.
type groupKey struct {
	route    string
	protocol int32
	host     string
}

// entry is one stored response. Entries sit in Cache.order by fetch time, oldest first.
type entry struct {
	key     Key
	json    []byte
	size    int64 // counted against maxBytes
	fetched time.Time
	expires time.Time // past this, neither Get nor LastGood can use the entry
	elem    *list.Element
}

// Cache is a bounded status response cache. It is safe for concurrent use. The only
// goroutines it starts run fetches that outlive an impatient caller; Close waits for them.
type Cache struct {
	now         func() time.Time
	max         int
	lastGoodFor time.Duration // <= 0: LastGood disabled
	maxBytes    int64
	missRate    float64 // < 0: misses are not limited
	missBurst   float64

	mu      sync.Mutex
	bytes   int64                          // held by entries, as entry.size counts
	misses  map[string]*missBucket         // by Key.Route
	groups  map[groupKey]map[string]*entry // backend -> entry
	order   list.List                      // of *entry, oldest fetch first
	n       int
	flights map[Key]*flight
	closed  bool
	wg      sync.WaitGroup
}

// NewCache returns an empty cache with o's defaults applied.
func NewCache(o Options) *Cache {
	c := &Cache{
		now:         o.Now,
		max:         o.MaxEntries,
		lastGoodFor: o.LastGoodFor,
		maxBytes:    o.MaxBytes,
		missRate:    o.MissRate,
		missBurst:   float64(o.MissBurst),
		groups:      make(map[groupKey]map[string]*entry),
		flights:     make(map[Key]*flight),
		misses:      make(map[string]*missBucket),
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxBytes
	}
	if c.missRate == 0 {
		c.missRate = DefaultMissRate
	}
	if c.missBurst <= 0 {
		c.missBurst = DefaultMissBurst
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.max <= 0 {
		c.max = DefaultMaxEntries
	}
	if c.lastGoodFor == 0 {
		c.lastGoodFor = DefaultLastGoodFor
	}
	return c
}

// Get returns a response younger than ttl (counted from the end of its fetch; hits never
// extend it) or calls fetch, with concurrent callers for the same key sharing one in-flight
// fetch. ttl <= 0 disables caching: every call fetches (still shared while in flight), though
// the result is kept for LastGood. A failed fetch is not cached. If ctx ends first, Get returns
// ctx.Err() while the shared fetch continues for others; fetch must carry its own deadline.
// hit reports whether the bytes came from cache. Returned bytes must not be modified.
// The cache keeps a copy of what fetch returns, so fetch may reuse its buffer afterwards.
func (c *Cache) Get(ctx context.Context, k Key, ttl time.Duration, fetch func() ([]byte, error)) (json []byte, hit bool, err error) {
	now := c.now() // read outside the lock: the clock is caller-supplied code
	c.mu.Lock()
	if ttl >= 0 {
		if e := c.lookupLocked(k); e != nil && now.Sub(e.fetched) < ttl {
			json = e.json
			c.mu.Unlock()
			return json, true, nil
		}
	}
	if err := ctx.Err(); err != nil {
		c.mu.Unlock()
		return nil, false, err
	}
	f, err := c.joinLocked(k, ttl, fetch, now)
	c.mu.Unlock()
	if err != nil {
		return nil, false, err
	}
	select {
	case <-f.done:
		return f.json, false, f.err
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// LastGood returns the newest successfully fetched response for (route, protocol, host) from
// any backend, provided it was fetched less than LastGoodFor ago. It is meant for answering
// a ping when every backend is down, so it ignores the TTL given to Get.
func (c *Cache) LastGood(route string, protocol int32, host string) ([]byte, bool) {
	if c.lastGoodFor <= 0 {
		return nil, false
	}
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *entry
	for _, e := range c.groups[groupKey{route: route, protocol: protocol, host: host}] {
		if now.Sub(e.fetched) >= c.lastGoodFor {
			continue
		}
		if best == nil || e.fetched.After(best.fetched) {
			best = e
		}
	}
	if best == nil {
		return nil, false
	}
	return best.json, true
}

// Len returns the number of responses held, including expired ones not yet swept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Bytes returns what the held responses count against MaxBytes.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Close makes later misses fail with ErrClosed and waits for fetches in flight to return.
// Hits are still served. Close is idempotent.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
}

// joinLocked returns the flight for k, starting one if none is running and the
// route's miss budget allows it.
func (c *Cache) joinLocked(k Key, ttl time.Duration, fetch func() ([]byte, error), now time.Time) (*flight, error) {
	if f, ok := c.flights[k]; ok {
		return f, nil
	}
	if c.closed {
		return nil, ErrClosed
	}
	if !c.allowMissLocked(k.Route, now) {
		return nil, ErrMissLimited
	}
	f := &flight{done: make(chan struct{})}
	c.flights[k] = f
	c.wg.Add(1)
	go c.run(k, ttl, f, fetch)
	return f, nil
}

// run performs one shared fetch. The entry is stored and the flight removed under one lock, so
// a caller arriving after that sees the entry and never starts a second fetch for the result.
func (c *Cache) run(k Key, ttl time.Duration, f *flight, fetch func() ([]byte, error)) {
	defer c.wg.Done()
	b, err := f.call(fetch)
	if err != nil {
		err = fmt.Errorf("fetch status from %s: %w", k.Backend, err)
	}
	now := c.now()
	c.mu.Lock()
	delete(c.flights, k)
	if err == nil {
		c.storeLocked(k, ttl, b, now)
	}
	c.mu.Unlock()
	f.finish(b, err)
}

func (c *Cache) lookupLocked(k Key) *entry {
	return c.groups[groupKey{route: k.Route, protocol: k.Protocol, host: k.Host}][k.Backend]
}

// storeLocked replaces k's entry with b. An entry is kept as long as either Get (ttl) or
// LastGood (lastGoodFor) could still use it.
func (c *Cache) storeLocked(k Key, ttl time.Duration, b []byte, now time.Time) {
	if old := c.lookupLocked(k); old != nil {
		c.removeLocked(old)
	}
	keep := max(ttl, c.lastGoodFor)
	size := int64(len(b)+len(k.Route)+len(k.Backend)+len(k.Host)) + entryOverhead
	if keep <= 0 || size > c.maxBytes {
		return
	}
	c.evictLocked(now, size)
	e := &entry{key: k, json: b, size: size, fetched: now, expires: now.Add(keep)}
	e.elem = c.order.PushBack(e)
	gk := groupKey{route: k.Route, protocol: k.Protocol, host: k.Host}
	g := c.groups[gk]
	if g == nil {
		g = make(map[string]*entry, 1)
		c.groups[gk] = g
	}
	g[k.Backend] = e
	c.n++
	c.bytes += size
}

// evictLocked makes room for one entry of size bytes. It walks from the oldest fetch,
// dropping expired entries, and drops the oldest live ones only while the cache is full
// (in entries or in bytes): under a key spray the newest responses win, which are the
// ones clients are most likely to ask for again.
func (c *Cache) evictLocked(now time.Time, size int64) {
	for front := c.order.Front(); front != nil; front = c.order.Front() {
		e := front.Value.(*entry)
		if now.Before(e.expires) && c.n < c.max && c.bytes+size <= c.maxBytes {
			return
		}
		c.removeLocked(e)
	}
}

func (c *Cache) removeLocked(e *entry) {
	c.order.Remove(e.elem)
	gk := groupKey{route: e.key.Route, protocol: e.key.Protocol, host: e.key.Host}
	if g := c.groups[gk]; g != nil {
		delete(g, e.key.Backend)
		if len(g) == 0 {
			delete(c.groups, gk)
		}
	}
	c.n--
	c.bytes -= e.size
}

// cloneResponse validates and copies a fetched body so the cache never aliases fetch's buffer.
func cloneResponse(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, ErrEmptyResponse
	}
	return bytes.Clone(b), nil
}
