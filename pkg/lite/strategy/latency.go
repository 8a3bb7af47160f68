package strategy

import (
	"slices"
	"sync"
	"time"

	"github.com/patrickmn/go-cache"
)

// LatencyTTL is how long a latency estimate lives without a new sample.
// After it the backend is unmeasured again (neutral), so a number from a
// backend nobody has talked to in minutes stops deciding placements.
const LatencyTTL = 3 * time.Minute

// LatencyWindow is how many recent samples an estimate is the median of.
// The median ignores spikes (a lost packet, a GC pause) as long as fewer
// than half of the window are spikes, and it follows a real change once
// more than half of the window shows it: with a probe every 10 s that is
// 80 s at most, before the confirmations of lowest-latency.
const LatencyWindow = 15

// latencyEstimate is immutable; an update stores a new one.
type latencyEstimate struct {
	value   time.Duration // the estimate
	samples uint64        // samples since the estimate (re)started
	at      time.Time     // time of the last sample
	last    time.Duration // the last sample, for operators
	window  [LatencyWindow]time.Duration
}

// estimate is the median of the window once it holds three samples, the
// smallest sample before: noise only ever adds to a round trip, so one
// unlucky first sample is corrected by the next one at once instead of
// locking the backend out.
func (e *latencyEstimate) estimate() time.Duration {
	n := int(min(e.samples, LatencyWindow))
	var buf [LatencyWindow]time.Duration
	w := buf[:n]
	copy(w, e.window[:n])
	slices.Sort(w)
	if n < 3 {
		return w[0]
	}
	if n%2 == 1 {
		return w[n/2]
	}
	return (w[n/2-1] + w[n/2]) / 2
}

// latencyStore keeps one estimate per backend address in a go-cache with a
// TTL; the cache owns expiry and is what updates, sweeps and snapshots
// read. Each backend also points at its latest estimate so that Order,
// the hot path, reads it without the cache's lock and clock call.
// Freshness is always checked against the manager's clock too, so a
// virtual clock fades estimates the same way real time does.
type latencyStore struct {
	now func() time.Time
	mu  sync.Mutex // serialises read-modify-write; go-cache has no compare-and-swap
	c   *cache.Cache
}

func newLatencyStore(now func() time.Time) *latencyStore {
	// A zero cleanup interval starts no janitor goroutine; the manager's
	// sweep deletes expired entries instead.
	return &latencyStore{now: now, c: cache.New(LatencyTTL, 0)}
}

// get returns the fresh estimate for addr.
func (s *latencyStore) get(addr string, now time.Time) (latencyEstimate, bool) {
	v, ok := s.c.Get(addr)
	if !ok {
		return latencyEstimate{}, false
	}
	e, ok := v.(*latencyEstimate)
	if !ok || now.Sub(e.at) >= LatencyTTL {
		return latencyEstimate{}, false
	}
	return *e, true
}

// add folds one sample into b's estimate; a faded estimate restarts. The
// samples are round trips that include the server: status exchanges and
// the time to a login's first byte, never a bare TCP connect, which the
// backend's kernel answers however slow its server is.
func (s *latencyStore) add(b *backend, d time.Duration) {
	if d <= 0 {
		return
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	next := &latencyEstimate{samples: 1, at: now, last: d}
	// b's mirror is the cache's entry (dropping a backend clears both), read
	// without the cache's lock and clock call.
	if old, ok := fresh(b.latency.Load(), now); ok {
		next.window, next.samples = old.window, old.samples+1
	}
	next.window[(next.samples-1)%LatencyWindow] = d
	next.value = next.estimate()
	s.c.Set(b.addr, next, cache.DefaultExpiration)
	b.latency.Store(next)
}

// fresh returns e when it is younger than the TTL at now.
func fresh(e *latencyEstimate, now time.Time) (*latencyEstimate, bool) {
	if e == nil || now.Sub(e.at) >= LatencyTTL {
		return nil, false
	}
	return e, true
}

func (s *latencyStore) delete(addr string) {
	s.c.Delete(addr)
}

// sweep drops estimates that are stale by either clock.
func (s *latencyStore) sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.DeleteExpired()
	now := s.now()
	for addr, it := range s.c.Items() {
		if e, ok := it.Object.(*latencyEstimate); ok && now.Sub(e.at) >= LatencyTTL {
			s.c.Delete(addr)
		}
	}
}
