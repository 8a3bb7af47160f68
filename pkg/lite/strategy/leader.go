package strategy

// Leader is implemented by strategies that keep one preferred backend per
// route (lowest-latency's incumbent), so that tools can watch how often
// the preference flaps.
type Leader interface {
	// Leader returns the preferred backend ("" before the first) and how
	// many times it changed from one backend to another.
	Leader() (addr string, changes uint64)
}

// Leader reports the preferred backend of routeKey's strategy and how
// often it changed; ok is false for an unknown route or a strategy
// without a single preferred backend.
func (m *Manager) Leader(routeKey string) (addr string, changes uint64, ok bool) {
	m.mu.RLock()
	r := m.routes[routeKey]
	m.mu.RUnlock()
	if r == nil {
		return "", 0, false
	}
	l, ok := r.strat.(Leader)
	if !ok {
		return "", 0, false
	}
	addr, changes = l.Leader()
	return addr, changes, true
}
