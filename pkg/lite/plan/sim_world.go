package plan

import (
	"container/heap"
	"context"
	"time"
)

// This file holds how time and scheduled events change the simulated world:
// sessions ending, backends added, removed, slowed, failed and recovered.

// advance applies everything that happens up to t in time order: sessions
// ending and scheduled events (an event at the same instant as a session
// end comes after it).
func (s *sim) advance(ctx context.Context, t time.Time) {
	for {
		var evAt time.Time
		hasEv := s.next < len(s.events)
		if hasEv {
			evAt = epoch.Add(s.events[s.next].At)
		}
		hasEnd := len(s.ends) > 0 && !s.ends[0].end.After(t)
		switch {
		case hasEnd && (!hasEv || !s.ends[0].end.After(evAt)):
			e := heap.Pop(&s.ends).(session)
			s.clk.t = e.end
			e.lease.Release()
			s.active[e.k]--
		case hasEv && !evAt.After(t):
			s.clk.t = evAt
			s.apply(ctx, s.events[s.next])
			s.next++
		default:
			return
		}
	}
}

// apply changes the world by e; reloads and deaths are seen by the probes
// that run right after.
func (s *sim) apply(ctx context.Context, e Event) {
	k := s.idx[e.Backend]
	s.rec.event(e, s.clk.t, s)
	switch e.Kind {
	case EventAdd, EventRemove:
		s.listed[k] = e.Kind == EventAdd
		s.route = s.routeBackends()
		s.setRoutes()
	case EventLatency:
		s.lat[k] = shifted(s.lat[k], e)
	case EventServer:
		s.server[k] = max(shifted(s.server[k], e), 0)
	case EventCapacity:
		s.caps[k] = e.Capacity
	case EventFail, EventRefuse:
		s.state[k] = timingOut
		if e.Kind == EventRefuse {
			s.state[k] = refusing
		}
		s.res.Backends[k].Dead = true
		s.disconnect(k)
	case EventRecover:
		s.state[k] = alive
	}
	s.probeAll(ctx)
}

// shifted applies latency or server event e to d.
func shifted(d time.Duration, e Event) time.Duration {
	if e.Relative {
		return max(d+e.Latency, time.Microsecond)
	}
	return e.Latency
}

// raises reports whether latency or server event e makes its backend
// slower.
func (s *sim) raises(e Event) bool {
	k := s.idx[e.Backend]
	cur := s.lat[k]
	if e.Kind == EventServer {
		cur = s.server[k]
	}
	if e.Relative {
		return e.Latency > 0
	}
	return e.Latency > cur
}

// disconnect ends every session on backend k at once: it died.
func (s *sim) disconnect(k int) {
	kept := s.ends[:0]
	for _, e := range s.ends {
		if e.k == k {
			e.lease.Release()
			s.active[k]--
			continue
		}
		kept = append(kept, e)
	}
	s.ends = kept
	heap.Init(&s.ends)
}
