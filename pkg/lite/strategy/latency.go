package strategy

import (
	"sync"
	"time"

	"github.com/patrickmn/go-cache"
)

// LatencyTTL is how long a latency estimate lives without a new sample.
// After it the backend is unmeasured again (neutral), so a number from a
// backend nobody has talked to in minutes stops deciding placements.
const LatencyTTL = 3 * time.Minute

// latencyAlpha weights a new sample in the moving average: high enough to
// follow a real change within a few samples, low enough to damp one-off
// spikes.
const latencyAlpha = 0.3

// latencyEstimate is immutable; an update stores a new one.
type latencyEstimate struct {
	ewma    time.Duration
	samples uint64
	at      time.Time // time of the last sample
}

// latencyStore keeps one smoothed estimate per backend address in a
// go-cache with a TTL; the cache owns expiry and is what updates, sweeps
// and snapshots read. Each backend also points at its latest estimate so
// that Order, the hot path, reads it without the cache's lock and clock
// call. Freshness is always checked against the manager's clock too, so a
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

// add folds one sample into b's estimate; a faded estimate restarts.
func (s *latencyStore) add(b *backend, d time.Duration) {
	if d <= 0 {
		return
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	next := &latencyEstimate{ewma: d, samples: 1, at: now}
	if old, ok := s.get(b.addr, now); ok {
		next.ewma = old.ewma + time.Duration(latencyAlpha*float64(d-old.ewma))
		next.samples = old.samples + 1
	}
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
