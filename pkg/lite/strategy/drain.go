package strategy

import "slices"

// Drained backends are the operator's (package operator's layer): a drained
// backend is left out of every login order, so it gets no new players, while its
// live sessions run on untouched (a session never asks the manager again). Its
// health, probes and status answers go on as before, so an undrain puts it
// straight back. This is not a route's drainMotd (LoadVerdict.Draining), which
// the backend announces itself and which still takes players when no other
// backend can.

// drainedText is a drained backend's Verdict.Why.
const drainedText = "drained by the operator: no new players; its live sessions stay"

// SetDrained replaces the set of drained backends (addresses as the routes list
// them, or as a template expands to). nil or empty drains none.
func (m *Manager) SetDrained(addrs []string) {
	if len(addrs) == 0 {
		m.drained.Store(nil)
		return
	}
	set := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		set[a] = true
	}
	m.drained.Store(&set)
}

// Drained reports whether addr is drained.
func (m *Manager) Drained(addr string) bool {
	d := m.drained.Load()
	return d != nil && (*d)[addr]
}

// dropDrained removes the drained backends from a login order (order[start:]
// of dst), keeping the others' order.
func (m *Manager) dropDrained(dst []string, start int, intent Intent) []string {
	d := m.drained.Load()
	if d == nil || intent != IntentLogin {
		return dst
	}
	kept := slices.DeleteFunc(dst[start:], func(a string) bool { return (*d)[a] })
	return dst[:start+len(kept)]
}

// markDrained marks the drained backends in Explain's verdicts: not eligible,
// whatever their health.
func (m *Manager) markDrained(vs []Verdict) {
	d := m.drained.Load()
	if d == nil {
		return
	}
	for i := range vs {
		if (*d)[vs[i].Addr] {
			vs[i].Drained, vs[i].Usable, vs[i].Pooled, vs[i].Panic = true, false, false, false
		}
	}
}

// ReasonName is the verdict's reason as the admin API shows it: "drained" for a
// drained backend, else the health reason's name.
func (v Verdict) ReasonName() string {
	if v.Drained {
		return "drained"
	}
	return v.Reason.String()
}
