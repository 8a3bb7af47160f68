package strategy

import (
	"slices"
	"strings"
)

// Leaving describes the backends that no route lists any more but that still
// hold players (or attempts), sorted by address: a scale-down's backends,
// until their last session ends. They take no new players (no order lists
// them), yet an operator must see where every player is, as HAProxy will not
// even delete a server that still has connections. A backend only a template
// expanded to was never listed and is not leaving: its template shows it.
func (m *Manager) Leaving() []BackendState {
	m.mu.RLock()
	var bs []*backend
	for _, b := range m.backends {
		if b.pins == 0 && b.lastRoute != "" && !b.idle() {
			bs = append(bs, b)
		}
	}
	routes := make([]string, len(bs))
	for i, b := range bs {
		routes[i] = b.lastRoute
	}
	m.mu.RUnlock()
	now := m.now()
	nowNS, probing := now.UnixNano(), m.probing.Load()
	out := make([]BackendState, 0, len(bs))
	for i, b := range bs {
		s := b.state(now, b.reason(nowNS, probing), m.lat)
		s.Removed, s.LastRoute = true, routes[i]
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b BackendState) int { return strings.Compare(a.Addr, b.Addr) })
	return out
}
