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

// LatencyWindow is how many recent samples of each kind an estimate keeps.
// The median ignores spikes (a lost packet, a GC pause) as long as fewer
// than half of the window are spikes, and it follows a real change once
// more than half of the window shows it: with a probe every 10 s that is
// 80 s at most, before the confirmations of lowest-latency (a backend that
// became faster is followed sooner: LatencyShiftSamples).
const LatencyWindow = 15

// Tail of the login samples: a server whose logins are sometimes very slow
// while its median looks fine pays the excess of its slowest recent login
// over its status median, beyond the margin, once LatencyTailStrikes of its
// last LatencyWindow logins were that slow. Two strikes, not one, so that
// one spike (a lost packet) moves nothing; the excess halves every
// LatencyTailHalfLife without a slower login, so a backend earns its place
// back even while it gets no players to prove itself with.
const (
	LatencyTailStrikes  = 2
	LatencyTailHalfLife = 30 * time.Second
)

// sampleKind says what a latency sample timed. The kinds differ for the
// same server (a status answer is built by the server, a login's first
// byte often is not), so each has its own window: only the backends that
// get players have login samples, and mixing them into one median made
// those look faster than an identical backend that only answered probes.
type sampleKind uint8

const (
	kindStatus sampleKind = iota // a status exchange, probe or cache fill
	kindLogin                    // a login's preamble to the backend's first byte
)

// sampleWindow is a ring of the last LatencyWindow samples of one kind.
type sampleWindow struct {
	d [LatencyWindow]time.Duration
	// at is when each sample came (Unix nanoseconds), for the tail's decay.
	at [LatencyWindow]int64
	n  uint64 // samples since the estimate (re)started
}

func (w *sampleWindow) add(d time.Duration, at time.Time) {
	i := w.n % LatencyWindow
	w.d[i], w.at[i] = d, at.UnixNano()
	w.n++
}

// LatencyShiftSamples is how many samples in a row, each faster than every
// sample of the window before them by more than the margin, show that a
// backend became faster: the window restarts from them, and the estimate
// follows in that many probe rounds instead of more than half the window.
// Only a faster shift is believed this way: noise mostly adds to a round trip,
// and a run of samples below everything seen before is a new regime, not
// jitter, while a run of slow ones may be noise (a GC storm, a congested
// minute) and waits for the median.
const LatencyShiftSamples = 3

// restartIfFaster restarts w from its last LatencyShiftSamples samples when
// they all are faster than the fastest sample before them by more than the
// margin of the median before them.
func (w *sampleWindow) restartIfFaster() {
	n := int(min(w.n, LatencyWindow))
	if n < LatencyShiftSamples+3 {
		return
	}
	var recent [LatencyShiftSamples]time.Duration
	var recentAt [LatencyShiftSamples]int64
	var older sampleWindow
	for age := range n { // newest first
		i := int((w.n - 1 - uint64(age)) % LatencyWindow)
		if age < LatencyShiftSamples {
			recent[LatencyShiftSamples-1-age], recentAt[LatencyShiftSamples-1-age] = w.d[i], w.at[i]
		} else {
			older.add(w.d[i], time.Time{})
		}
	}
	floor := slices.Min(older.d[:min(older.n, LatencyWindow)]) - LatencyMargin(older.median())
	for _, d := range recent {
		if d >= floor {
			return
		}
	}
	*w = sampleWindow{}
	for i, d := range recent {
		w.add(d, time.Unix(0, recentAt[i]))
	}
}

// median is the median of the window once it holds three samples, the
// smallest sample before: noise only ever adds to a round trip, so one
// unlucky first sample is corrected by the next one at once instead of
// locking the backend out.
func (w *sampleWindow) median() time.Duration {
	n := int(min(w.n, LatencyWindow))
	var buf [LatencyWindow]time.Duration
	s := buf[:n]
	copy(s, w.d[:n])
	slices.Sort(s)
	if n < 3 {
		return s[0]
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// tail is the largest excess of the window's samples over base beyond
// margin, decayed from its sample's time to now; zero until at least
// LatencyTailStrikes samples of the window exceed base by more than the
// margin. Once armed, a single new slow sample pays in full at once, so a
// backend that earned its way back by decay does not get two more players
// to hurt before it is left again.
func (w *sampleWindow) tail(base, margin time.Duration, now time.Time) time.Duration {
	var top time.Duration
	strikes := 0
	for i := range int(min(w.n, LatencyWindow)) {
		x := w.d[i] - base - margin
		if x <= 0 {
			continue
		}
		strikes++
		top = max(top, decay(x, time.Duration(now.UnixNano()-w.at[i])))
	}
	if strikes < LatencyTailStrikes {
		return 0
	}
	return top
}

// decay halves x every LatencyTailHalfLife of age, linear within a
// half-life; integers, so that simulated plans are the same everywhere.
func decay(x, age time.Duration) time.Duration {
	if x <= 0 {
		return 0
	}
	age = max(age, 0)
	halves := age / LatencyTailHalfLife
	if halves >= 62 {
		return 0
	}
	x >>= uint(halves)
	frac := age % LatencyTailHalfLife
	return x - time.Duration(int64(x)*int64(frac)/int64(2*LatencyTailHalfLife))
}

// latencyEstimate is immutable; an update stores a new one.
type latencyEstimate struct {
	// value is the estimate strategies rank by: the status median, the
	// login median while there is no status sample. Probes reach every
	// backend alike, so ranking by them compares like with like.
	value time.Duration
	// samples counts the samples behind value: rounds of the kind ranked.
	samples uint64
	// tail is the login tail at the time of the last sample (see
	// sampleWindow.tail); tailAt is that time.
	tail   time.Duration
	tailAt time.Time
	at     time.Time     // time of the last sample
	last   time.Duration // the last sample, for operators
	status sampleWindow
	login  sampleWindow
}

// rank recomputes value, samples and the tail after a sample at now.
func (e *latencyEstimate) rank(now time.Time) {
	switch {
	case e.status.n >= 3 || e.status.n > 0 && e.login.n == 0:
		e.value, e.samples = e.status.median(), e.status.n
	case e.status.n == 0:
		e.value, e.samples = e.login.median(), e.login.n
	default:
		e.value, e.samples = e.warmMedian(), e.status.n+e.login.n
	}
	e.tail, e.tailAt = 0, now
	if e.login.n > 0 {
		// Jitter within the margin is what equally good backends differ by;
		// only what is beyond it is slow.
		e.tail = e.login.tail(e.value, LatencyMargin(e.value), now)
	}
}

// warmMedian is the estimate while the probes alone are too few for a
// median: a burst of logins must not be ranked on one or two probes, so
// their samples count too, but never below the fastest probe, so that a
// server's fast login answers cannot make it look faster than an
// identical server that only answered probes.
func (e *latencyEstimate) warmMedian() time.Duration {
	floor := e.status.d[0]
	for _, d := range e.status.d[1:min(e.status.n, LatencyWindow)] {
		floor = min(floor, d)
	}
	var both sampleWindow
	for _, d := range e.status.d[:min(e.status.n, LatencyWindow)] {
		both.add(d, time.Time{})
	}
	for _, d := range e.login.d[:min(e.login.n, LatencyWindow)] {
		if both.n == LatencyWindow {
			break
		}
		both.add(max(d, floor), time.Time{})
	}
	return both.median()
}

// tailNow returns the login tail decayed to now.
func (e *latencyEstimate) tailNow(now time.Time) time.Duration {
	return decay(e.tail, now.Sub(e.tailAt))
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

// add folds one status round trip into b's estimate.
func (s *latencyStore) add(b *backend, d time.Duration) { s.addKind(b, d, kindStatus) }

// addLogin folds one login's time to the backend's first byte into b's
// estimate.
func (s *latencyStore) addLogin(b *backend, d time.Duration) { s.addKind(b, d, kindLogin) }

// addKind folds one sample of kind into b's estimate; a faded estimate
// restarts. The samples are round trips that include the server, never a
// bare TCP connect, which the backend's kernel answers however slow its
// server is.
func (s *latencyStore) addKind(b *backend, d time.Duration, kind sampleKind) {
	if d <= 0 {
		return
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	next := &latencyEstimate{at: now, last: d}
	// b's mirror is the cache's entry (dropping a backend clears both), read
	// without the cache's lock and clock call.
	if old, ok := fresh(b.latency.Load(), now); ok {
		next.status, next.login = old.status, old.login
	}
	if kind == kindLogin {
		next.login.add(d, now) // its tail keeps every slow login: no restart
	} else {
		next.status.add(d, now)
		next.status.restartIfFaster()
	}
	next.rank(now)
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
