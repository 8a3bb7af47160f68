package strategy

import (
	"cmp"
	"slices"
)

// MaxUnlistedBackends bounds the backends a Manager tracks that no route lists:
// addresses expanded from templates, which players choose with the host they type.
// Past it, the least recently used idle ones are forgotten (down to 7/8 of the bound,
// so the scan runs once per MaxUnlistedBackends/8 new addresses, not once per
// address). A backend with players, or with attempts still unsettled, is never forgotten; one that returns starts anew,
// as after dynamicIdle.
const MaxUnlistedBackends = 4096

// boundUnlistedLocked enforces MaxUnlistedBackends after new state was created;
// keep holds the state the caller is about to use, which stays. m.mu must be held.
func (m *Manager) boundUnlistedLocked(keep []*backend) {
	if len(m.backends) <= max(m.boundAt, MaxUnlistedBackends) {
		return
	}
	type idle struct {
		addr string
		used int64
	}
	var cand []idle
	unlisted := 0
	for addr, b := range m.backends {
		if b.pins > 0 {
			continue
		}
		unlisted++
		if b.idle() && !slices.Contains(keep, b) {
			cand = append(cand, idle{addr, b.lastUsed.Load()})
		}
	}
	if unlisted <= MaxUnlistedBackends {
		// Listed backends do not count: look again when the bound can next be passed.
		m.boundAt = len(m.backends) + MaxUnlistedBackends - unlisted
		return
	}
	slices.SortFunc(cand, func(a, b idle) int { return cmp.Compare(a.used, b.used) })
	drop := min(unlisted-MaxUnlistedBackends*7/8, len(cand))
	for _, c := range cand[:drop] {
		m.backends[c.addr].latency.Store(nil)
		delete(m.backends, c.addr)
		m.targets = nil
		m.lat.delete(c.addr)
	}
	// Look again once as many new addresses as the room just made have arrived.
	m.boundAt = len(m.backends) + MaxUnlistedBackends - (unlisted - drop)
}
