package discovery

import (
	"maps"
	"slices"
	"time"
)

// DefaultCoalesce is MergerOptions.Coalesce's default: a burst of changes (a
// container crash-looping, a rollout replacing pods) is applied at most four
// times a second, and a change waits at most this long to be served.
const DefaultCoalesce = 250 * time.Millisecond

// schedule applies the changed sources now, or, within Coalesce of the last
// apply, once that window ends, together with every change that comes
// meanwhile. m.mu is held.
func (m *Merger) schedule() {
	if m.stopFlush != nil {
		return // a flush is due: this change joins it
	}
	var wait time.Duration
	if m.o.Coalesce > 0 && !m.lastApply.IsZero() && !m.closed {
		wait = m.lastApply.Add(m.o.Coalesce).Sub(m.o.Now())
	}
	if wait <= 0 {
		m.flush()
		return
	}
	m.flushes.Add(1)
	m.stopFlush = m.o.AfterFunc(wait, m.scheduledFlush)
}

func (m *Merger) scheduledFlush() {
	defer m.flushes.Done()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopFlush = nil
	m.flush()
}

// flush decodes the sources changed since the last apply and applies the
// merged config once. A refused apply puts those sources back as they were in
// force. m.mu is held.
func (m *Merger) flush() {
	if len(m.dirty) == 0 || m.file == nil {
		return
	}
	prev := m.dirty
	m.dirty = make(map[string]sourceState)
	names := slices.Sorted(maps.Keys(prev))
	for _, name := range names {
		m.rebuild(name, m.sources[name])
	}
	m.lastApply = m.o.Now()
	if err := m.o.Apply(m.merged()); err != nil {
		for _, name := range names {
			s, p := m.sources[name], prev[name]
			s.routes, s.decoded, s.rejected, s.refused = p.routes, p.decoded, p.rejected, p.refused
			m.o.Log.Error(err, "discovered routes not applied; the routes in force stay", "source", name)
		}
		return
	}
	for _, name := range names {
		s := m.sources[name]
		backends := 0
		for _, r := range s.decoded {
			backends += len(r.Backend)
		}
		m.o.Log.Info("discovered routes applied", "source", name, "routes", len(s.decoded),
			"backends", backends, "rejected", len(s.rejected), "refusedClaims", len(s.refused))
	}
}

// Close cancels an apply waiting for its window (the proxy is shutting down;
// the routes in force stay) and returns once no coalesced apply runs. A change
// after Close applies at once.
func (m *Merger) Close() {
	m.mu.Lock()
	m.closed = true
	if m.stopFlush != nil && m.stopFlush() {
		m.stopFlush = nil
		m.flushes.Done()
	}
	m.mu.Unlock()
	m.flushes.Wait()
}
