package strategy

import "sync"

// A login waiting for a backend's first answer waits, at most, what Patience gave
// it when it started. A backend that goes dark while logins wait on it used to
// keep every one of them for that whole time (2 s of a 300/s storm: up to 117 of
// 300 players waited more than 1 s), though the rest of the fleet showed much
// sooner that it had stopped answering. OnStall lets the waiting logins give up
// once the fleet has answered attempts reserved one of the backend's own
// first-byte times (at least StallAfter) after its oldest unanswered one: it is
// then that far behind its own pace while the others keep theirs. A backend that
// has never answered has no pace to fall behind, and its logins wait as Patience
// says (in a burst onto a fresh route the first answers are uneven).

// stallWatch holds the logins waiting on each backend's first answer.
type stallWatch struct {
	mu      sync.Mutex
	waiting map[*backend]map[*stallWaiter]struct{}
}

type stallWaiter struct{ giveUp func() }

// OnStall calls giveUp, once, if addr stalls while a login waits for its first
// answer; the returned stop ends the watch, after which giveUp is never called.
// giveUp runs on the goroutine of the login whose answer showed the stall, under
// the watch's lock: it must only wake the waiting login (set a deadline), never
// block.
func (m *Manager) OnStall(addr string, giveUp func()) (stop func()) {
	m.mu.RLock()
	b := m.backends[addr]
	m.mu.RUnlock()
	if b == nil {
		return func() {}
	}
	w := &stallWaiter{giveUp: giveUp}
	sw := &m.stalls
	sw.mu.Lock()
	if sw.waiting == nil {
		sw.waiting = map[*backend]map[*stallWaiter]struct{}{}
	}
	if sw.waiting[b] == nil {
		sw.waiting[b] = map[*stallWaiter]struct{}{}
	}
	sw.waiting[b][w] = struct{}{}
	m.watching.Add(1)
	sw.mu.Unlock()
	return func() {
		sw.mu.Lock()
		defer sw.mu.Unlock()
		if ws := sw.waiting[b]; ws != nil {
			if _, ok := ws[w]; ok {
				delete(ws, w)
				m.watching.Add(-1)
			}
			if len(ws) == 0 {
				delete(sw.waiting, b)
			}
		}
	}
}

// wakeStalled gives up the logins waiting on backends that have fallen behind at
// now (unix ns); called when the fleet's progress moves.
func (m *Manager) wakeStalled(now int64) {
	if m.watching.Load() == 0 {
		return
	}
	sw := &m.stalls
	sw.mu.Lock()
	defer sw.mu.Unlock()
	for b, ws := range sw.waiting {
		fb := b.firstByte.Load()
		if fb == 0 || !b.behind(now, max(int64(StallAfter), fb)) {
			continue
		}
		for w := range ws {
			w.giveUp()
			m.watching.Add(-1)
		}
		delete(sw.waiting, b)
	}
}
