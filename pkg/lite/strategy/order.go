package strategy

import "time"

// Idle templated backends are forgotten after dynamicIdle; the sweep that
// does it runs at most every sweepEvery.
const (
	dynamicIdle = 10 * time.Minute
	sweepEvery  = time.Minute
)

// scratch holds Order's working memory, pooled so that the returned slice
// is the only allocation per call.
type scratch struct {
	bs    []*backend
	why   []Reason // each backend's health verdict, set by markUsable
	rank  []uint8  // each backend's health rank, set by markUsable
	pool  uint8    // the rank the strategy orders (every rank in panic mode)
	seen  []bool
	cands []Candidate
	order []int
}

func (m *Manager) getScratch(n int) *scratch {
	sc := m.scratch.Get().(*scratch)
	if cap(sc.bs) < n {
		sc.bs = make([]*backend, n)
		sc.why = make([]Reason, n)
		sc.rank = make([]uint8, n)
		sc.seen = make([]bool, n)
		sc.cands = make([]Candidate, 0, n)
		sc.order = make([]int, n)
	}
	sc.bs, sc.why, sc.rank, sc.seen, sc.order = sc.bs[:n], sc.why[:n], sc.rank[:n], sc.seen[:n], sc.order[:n]
	return sc
}

func (m *Manager) putScratch(sc *scratch) {
	clear(sc.bs) // do not keep dropped backends reachable
	clear(sc.cands[:cap(sc.cands)])
	m.scratch.Put(sc)
}

// Order returns the try order for one connection: a new slice holding every
// address of backends, ordered by the route's strategy over the backends
// that look usable, followed by the others rank by rank (busy but healthy,
// busy and doubtful, awaiting a probe, ejected or down), config order
// within a rank. When every healthy backend is busy (a login storm) the
// strategy orders the busy ones instead, and the known-bad ones stay last.
// When fewer than half are healthy (panic mode) health is ignored and the
// strategy orders them all. An unknown routeKey is ordered as Default orders.
// Order does no I/O and, for a given seed and call sequence, is
// deterministic.
func (m *Manager) Order(routeKey string, backends []string, intent Intent) []string {
	return m.AppendOrder(make([]string, 0, len(backends)), routeKey, backends, intent)
}

// AppendOrder is Order appending to dst, so a caller that reuses dst
// orders a connection without allocating.
func (m *Manager) AppendOrder(dst []string, routeKey string, backends []string, intent Intent) []string {
	return m.AppendOrderFor(dst, routeKey, backends, intent, "")
}

// AppendOrderFor is AppendOrder for the player with key (PlayerKey), which a
// strategy that keeps players together (sticky) orders by; "" names no one.
func (m *Manager) AppendOrderFor(dst []string, routeKey string, backends []string, intent Intent, player string) []string {
	if len(backends) == 0 {
		return dst
	}
	now := m.now()
	sc := m.getScratch(len(backends))
	defer m.putScratch(sc)
	r := m.resolve(routeKey, backends, sc.bs, now)
	strat := unknownRoute
	var inputs Inputs
	if r != nil {
		strat, inputs = r.strat, r.inputs
	}

	panicMode, healthy, cands, order := m.decide(r, sc, backends, decision{strat, inputs, intent, now, player})
	// The log follows health, not the ordering: a backend that is only busy (a login
	// burst) is healthy, and a single-backend route would otherwise log entering and
	// leaving panic mode with every few logins of a burst.
	if r != nil && r.panicked.Load() != panicMode {
		m.logPanic(r, panicMode, healthy, len(backends))
	}
	start := len(dst)
	for _, p := range order {
		dst = append(dst, backends[cands[p].Index])
	}
	if !panicMode {
		if sc.pool > rankUsable && intent == IntentLogin {
			m.spilled(r, sc.pool, now)
		}
		for rk := sc.pool + 1; rk <= rankOut; rk++ {
			for i, b := range sc.rank {
				if b == rk {
					dst = append(dst, backends[i])
				}
			}
		}
	}
	dst = m.dropDrained(dst, start, intent)
	m.traceOrder(r, intent, dst[start:], sc.pool)
	return dst
}

// decision is what one order is decided with.
type decision struct {
	strat  Strategy
	inputs Inputs
	intent Intent
	now    time.Time
	player string
}

// decide marks the backends' health, gathers the pool's candidates and lets
// the strategy order them. Login orders are decided one at a time (m.pick, taken
// after m.mu, never before), each claiming its first pick (claim.go): a login
// whose reads of the backends' counts were spread over a burst saw one backend
// as it was before the burst and the others as after it, and least-connections
// put three of six logins on one of three idle backends.
func (m *Manager) decide(r *route, sc *scratch, backends []string, d decision) (panicMode bool, healthy int, cands []Candidate, order []int) {
	if r != nil && d.intent == IntentLogin {
		m.pick.Lock()
		defer m.pick.Unlock()
	}
	panicMode, healthy = m.markUsable(sc, d.now)
	cands = m.gather(sc, backends, panicMode, d.inputs, d.now)
	order = sc.order[:len(cands)]
	if k, ok := d.strat.(keyed); ok && d.player != "" {
		k.OrderKey(cands, d.intent, d.player, order)
	} else {
		d.strat.Order(cands, d.intent, order)
	}
	if !permutation(order, sc.seen) {
		identity(order)
	}
	if r != nil && d.intent == IntentLogin {
		m.gateRamp(r, sc, cands, order, d.now.UnixNano())
		sc.bs[cands[order[0]].Index].claim(d.now.UnixNano())
	}
	return panicMode, healthy, cands, order
}

// markUsable sets sc.why and sc.rank for each backend (nil entries of sc.bs
// have no state yet) and the pool the strategy orders, and reports panic
// mode, fewer than half healthy (usable, or only busy), when health is more
// likely wrong than the backends.
func (m *Manager) markUsable(sc *scratch, now time.Time) (panicMode bool, healthy int) {
	probing, nowNS := m.probing.Load(), now.UnixNano()
	sc.pool = rankOut
	for i, b := range sc.bs {
		sc.why[i] = b.reason(nowNS, probing)
		sc.rank[i] = rank(b, sc.why[i], nowNS)
		sc.pool = min(sc.pool, sc.rank[i])
		if sc.rank[i] <= rankBusyDoubt {
			healthy++
		}
	}
	return healthy*2 < len(sc.bs), healthy
}

// inPool reports whether backend i is among the candidates the strategy
// orders.
func (sc *scratch) inPool(i int, all bool) bool { return all || sc.rank[i] == sc.pool }

// gather fills the candidates the strategy orders: the pool's backends, or
// all of them in panic mode.
func (m *Manager) gather(sc *scratch, backends []string, all bool, in Inputs, now time.Time) []Candidate {
	cands := sc.cands[:0]
	for i, b := range sc.bs {
		if sc.inPool(i, all) {
			cands = cands[:len(cands)+1]
			m.fillCandidate(&cands[len(cands)-1], b, backends[i], i, in, now)
		}
	}
	sc.cands = cands
	return cands
}

// fillCandidate gathers b's live state into c, reading only what the
// strategy uses. It fills in place: Order's candidates live in pooled
// scratch and copying them around costs more than the reads.
func (m *Manager) fillCandidate(c *Candidate, b *backend, addr string, i int, in Inputs, now time.Time) {
	// Attempts in flight before players: a login that joins meanwhile moves from
	// the one count to the other, and is then counted twice rather than not at all.
	claimed := b.claimed(now.UnixNano())
	unsettled := b.unsettled.Load()
	*c = Candidate{Addr: addr, Index: i, Active: b.active.Load(), Unsettled: unsettled, Claimed: claimed}
	if in&InputLatency != 0 {
		fillLatency(c, b, now)
		if !b.wantLatency.Load() {
			b.wantLatency.Store(true)
			m.wake()
		}
	}
	if in&(InputReport|InputLoad) != 0 {
		if p := b.report.Load(); p != nil {
			c.Online, c.Max, c.HasReport, c.HasPlayers = p.r.Online, p.r.Max, true, p.r.HasPlayers
			c.ReportAge, c.ActiveAtReport, c.Stuck = now.Sub(p.at), p.own, p.stuck >= StuckReports
		}
	}
	if in&InputLoad != 0 {
		c.Placed, c.Draining, c.Warm = b.placed.count(), b.draining.Load(), b.warm(now.UnixNano())
		c.Held = b.held(now.UnixNano())
		if st := b.settings.Load(); st != nil {
			c.Capacity = st.capacity
		}
	}
}

// fillLatency reads b's latency estimate and failure penalty into c.
func fillLatency(c *Candidate, b *backend, now time.Time) {
	if e, ok := fresh(b.latency.Load(), now); ok {
		c.Latency, c.HasLatency, c.Samples, c.Tail = e.value, true, e.samples, e.tailNow(now)
	}
	fails, last := b.outcomes.share()
	c.Failures, c.Penalty, c.LastFailed = fails, FailurePenalty(fails), last
}

// resolve finds the route and the state of each backend, creating state
// for addresses seen for the first time (templated backends).
func (m *Manager) resolve(key string, addrs []string, bs []*backend, now time.Time) *route {
	r, missing := m.lookup(key, addrs, bs, now.UnixNano())
	if missing {
		m.createMissing(r, addrs, bs, now)
	}
	return r
}

// lookup finds the route and the known state of each backend, leaving nil
// where there is none. A nonzero touch marks unlisted backends used then,
// so that they do not expire; Explain passes 0 and changes nothing.
func (m *Manager) lookup(key string, addrs []string, bs []*backend, touch int64) (r *route, missing bool) {
	m.mu.RLock()
	r = m.routes[key]
	for i, addr := range addrs {
		b := m.backends[addr]
		bs[i] = b
		switch {
		case b == nil:
			missing = true
		case touch != 0 && b.pins == 0:
			b.lastUsed.Store(touch)
		}
	}
	m.mu.RUnlock()
	return r, missing
}

// createMissing fills the nil entries of bs with new state.
func (m *Manager) createMissing(r *route, addrs []string, bs []*backend, now time.Time) {
	m.mu.Lock()
	for i, addr := range addrs {
		if bs[i] != nil {
			continue
		}
		b := m.backends[addr]
		if b == nil {
			b = newBackend(addr, &m.answered)
			if r != nil {
				b.hc = r.health
			}
			m.backends[addr] = b
			m.targets = nil
		}
		b.lastUsed.Store(now.UnixNano())
		bs[i] = b
	}
	m.boundUnlistedLocked(bs)
	m.sweepLocked(now, false)
	m.mu.Unlock()
	m.wake()
}

// backendFor returns addr's state, creating it (unlisted, so it expires
// when idle) if needed.
func (m *Manager) backendFor(addr string) *backend {
	m.mu.RLock()
	b := m.backends[addr]
	m.mu.RUnlock()
	if b != nil {
		return b
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if b = m.backends[addr]; b == nil {
		b = newBackend(addr, &m.answered)
		b.lastUsed.Store(m.now().UnixNano())
		m.backends[addr] = b
		m.targets = nil
	}
	return b
}

// sweepLocked forgets idle unlisted backends and stale latency estimates,
// at most every sweepEvery unless forced. m.mu must be held.
func (m *Manager) sweepLocked(now time.Time, force bool) {
	if !force && now.Sub(m.lastSweep) < sweepEvery {
		return
	}
	m.lastSweep = now
	for addr, b := range m.backends {
		idle := now.Sub(time.Unix(0, b.lastUsed.Load()))
		if b.pins == 0 && b.idle() && idle >= dynamicIdle {
			delete(m.backends, addr)
			m.targets = nil
			m.lat.delete(addr)
			b.latency.Store(nil)
		}
	}
	m.lat.sweep()
}

// permutation reports whether order holds each of 0..len-1 exactly once,
// so a faulty custom strategy degrades to config order instead of
// dropping or repeating backends.
func permutation(order []int, seen []bool) bool {
	seen = seen[:len(order)]
	clear(seen)
	for _, p := range order {
		if p < 0 || p >= len(order) || seen[p] {
			return false
		}
		seen[p] = true
	}
	return true
}

// logPanic logs a route entering or leaving panic mode for health, once per change.
func (m *Manager) logPanic(r *route, panicMode bool, healthy, n int) {
	if !r.panicked.CompareAndSwap(!panicMode, panicMode) {
		return
	}
	if panicMode {
		m.log.Info("too few healthy backends, trying all of them (panic mode)", "route", r.key, "healthy", healthy, "backends", n)
	} else {
		m.log.Info("enough healthy backends again, leaving panic mode", "route", r.key, "healthy", healthy, "backends", n)
	}
}
