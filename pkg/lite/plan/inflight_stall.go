package plan

// watch gives up silent attempt e on addr as the proxy's waiting login does
// (strategy.Manager.OnStall): once the fleet shows the backend has fallen
// behind its pace, the attempt settles then, in an event of its own, and e is
// skipped when its time comes.
func (s *faultSim) watch(e *simEvent, addr string) {
	start := s.clk.t.Sub(epoch)
	e.stop = e.login.rep.m.OnStall(addr, func() {
		e.gaveUp = true
		now := s.clk.t.Sub(epoch)
		s.q.push(&simEvent{at: now, kind: evSettle, login: e.login, lease: e.lease, cost: now - start, err: e.err})
	})
}
