package strategy

import "slices"

// Players sums what the usable backends among backends last reported: the
// players online, and the players max (a backend's configured capacity
// where it has one). Reports older than 3x the route's staleAfter
// (default 90s) are left out, as are backends without a plausible players
// object. ok is false when no backend contributed. Status answers use it
// to present a balanced route as one server.
func (m *Manager) Players(routeKey string, backends []string) (online, maxPlayers int, ok bool) {
	now := m.now()
	nowNS, probing := now.UnixNano(), m.probing.Load()
	m.mu.RLock()
	defer m.mu.RUnlock()
	horizon := 3 * DefaultStaleAfter
	if r := m.routes[routeKey]; r != nil {
		horizon = 3 * r.p2c.StaleAfter
	}
	for i, addr := range backends {
		b := m.backends[addr]
		if b == nil || !b.usable(nowNS, probing) || slices.Contains(backends[:i], addr) {
			continue
		}
		p := b.report.Load()
		if p == nil || !p.r.HasPlayers || now.Sub(p.at) >= horizon {
			continue
		}
		c := p.r.Max
		if st := b.settings.Load(); st != nil && st.capacity > 0 {
			c = st.capacity
		}
		online += p.r.Online
		maxPlayers += c
		ok = true
	}
	return online, maxPlayers, ok
}
