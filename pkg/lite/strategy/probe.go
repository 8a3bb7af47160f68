package strategy

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// latencyRetry spaces probes of an unmeasured lowest-latency backend whose
// probes keep failing.
const latencyRetry = 10 * time.Second

// ErrRunning is returned by Run when the manager's probe loop already runs.
var ErrRunning = errors.New("strategy: probe loop already running")

// Run runs the probe loop until ctx ends: health checks every interval,
// probes of unmeasured lowest-latency backends at once, and the retest of a
// backend when its ejection ends (until that probe passes, players do not
// get it). It also sweeps idle state. Run returns nil after ctx ends, once
// every goroutine it started has exited. Without a Prober it only sweeps.
func (m *Manager) Run(ctx context.Context) error {
	if !m.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer m.running.Store(false)
	if m.prober != nil {
		m.probing.Store(true)
		defer m.probing.Store(false)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-m.kick:
		}
		now := m.now()
		m.mu.Lock()
		m.sweepLocked(now, false)
		m.mu.Unlock()
		next := now.Add(sweepEvery)
		if m.prober != nil {
			next = m.launchDue(ctx, &wg, now, next)
		}
		timer.Reset(max(next.Sub(m.now()), 0))
	}
}

// launchDue starts a probe for every backend that is due and returns the
// earliest future due time (or next when it is sooner).
func (m *Manager) launchDue(ctx context.Context, wg *sync.WaitGroup, now, next time.Time) time.Time {
	for _, b := range m.probeTargets() {
		at, ok := m.dueAt(b, now)
		if !ok {
			continue
		}
		if at.After(now) {
			next = minTime(next, at)
			continue
		}
		timeout := m.startProbe(b, now)
		wg.Go(func() {
			m.probe(ctx, b, timeout)
			m.wake()
		})
	}
	return next
}

// ProbeDue runs every probe that is due now, one after another in address
// order, and returns how many ran. It is the synchronous form of Run's
// loop for the simulator and tests; calling it declares that probes are
// being driven, so ejected backends wait for their retest from then on.
func (m *Manager) ProbeDue(ctx context.Context) int {
	if m.prober == nil {
		return 0
	}
	m.probing.Store(true)
	now := m.now()
	n := 0
	for _, b := range m.probeTargets() {
		if at, ok := m.dueAt(b, now); !ok || at.After(now) {
			continue
		}
		m.probe(ctx, b, m.startProbe(b, now))
		n++
	}
	return n
}

// probeTargets lists the known backends in address order. The list is kept
// until the set of backends changes: the probe loop (and the simulator, once
// per replica and virtual second) asks far more often than backends come and
// go. Callers must not modify it.
func (m *Manager) probeTargets() []*backend {
	m.mu.RLock()
	bs := m.targets
	m.mu.RUnlock()
	if bs != nil {
		return bs
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.targets == nil {
		bs := make([]*backend, 0, len(m.backends))
		for _, b := range m.backends {
			bs = append(bs, b)
		}
		slices.SortFunc(bs, func(a, b *backend) int { return strings.Compare(a.addr, b.addr) })
		m.targets = bs
	}
	return m.targets
}

// dueAt returns when b next needs a probe; ok is false when it needs none
// (or one is in flight).
func (m *Manager) dueAt(b *backend, now time.Time) (at time.Time, ok bool) {
	consider := func(t time.Time) {
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inFlight {
		return at, false
	}
	if b.hc.Enabled {
		consider(b.nextCheck)
	}
	if b.reportEvery > 0 {
		consider(b.nextReport)
	}
	if b.ejected && b.awaitProbe.Load() {
		consider(b.retestAt)
	}
	if b.wantLatency.Load() {
		// The backend's mirror of its estimate, as Order reads it: no cache lock,
		// no clock call and no copy of the sample window.
		if e, ok := fresh(b.latency.Load(), now); ok {
			consider(e.at.Add(LatencyTTL))
		} else {
			consider(b.latencyProbeAt.Add(latencyRetry))
		}
	}
	return at, ok
}

// startProbe marks b's probe in flight, schedules its next health check
// and returns the probe's timeout.
func (m *Manager) startProbe(b *backend, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight = true
	b.latencyProbeAt = now
	if b.reportEvery > 0 {
		b.nextReport = now.Add(m.jittered(b.reportEvery))
	}
	if !b.hc.Enabled {
		return DefaultHealthTimeout
	}
	b.nextCheck = now.Add(m.jittered(b.hc.Interval))
	return b.hc.Timeout
}

// jittered returns iv ±10%, so probes of many backends (and replicas)
// spread out.
func (m *Manager) jittered(iv time.Duration) time.Duration {
	return iv - iv/10 + time.Duration(m.jitter.Int64N(int64(iv/5)+1))
}

// probe performs one probe and records it, unless ctx ended meanwhile or
// the proxy itself was out of resources.
func (m *Manager) probe(ctx context.Context, b *backend, timeout time.Duration) {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	r, err := m.prober.Probe(pctx, b.addr)
	cancel()
	if ctx.Err() != nil || errors.Is(err, ErrNotBackend) {
		// Cut short by shutdown, or the proxy's own limits: nothing about the backend.
		b.mu.Lock()
		b.inFlight = false
		b.mu.Unlock()
		return
	}
	m.applyProbe(b, r, err)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
