package plan

import (
	"container/heap"
	"fmt"
	"slices"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// This file is one player's login as the proxy walks it: down the replica's
// order, reserving before each attempt, failing over after a dead backend, a
// first answer later than the manager's Patience allows, or a Login
// Disconnect (a full backend's refusal), within the player's budget. The
// walk is decided at the player's arrival instant: the virtual clock does
// not move while it runs, but what each attempt costs counts against the
// budget.

// outcome is how one simulated login attempt ended.
type outcome uint8

const (
	joined  outcome = iota
	failed          // dead, or no first answer in time
	refused         // answered with a Login Disconnect: full
)

// connect places player i, arriving at t, the way the proxy would.
func (s *sim) connect(i int, t time.Time, rep *replica) {
	// The player's key is what sticky keeps together (see Options.Population).
	order := rep.m.AppendOrderFor(nil, routeKey, s.route, strategy.IntentLogin, fmt.Sprintf("n:player%d", s.player(i)))
	fleet := slices.Clone(order)
	var turnedAway []string // refused in words not known to mean full
	refusals := 0
	waited := time.Duration(0)
	for j := 0; j < len(order) && waited < s.o.Budget; j++ {
		addr := order[j]
		k := s.idx[addr]
		lease := rep.m.Reserve(addr)
		got, cost := s.attempt(rep, k, lease, fleet, s.o.Budget-waited)
		waited += cost
		switch got {
		case joined:
			rep.m.Refused(turnedAway...) // no room for a player another backend took
			s.place(i, t, k, lease)
			return
		case refused:
			refusals++
			if slices.Contains(s.o.CustomRefusal, addr) {
				turnedAway = append(turnedAway, addr)
			}
		}
		// What other logins showed since the order was made re-orders the rest.
		rep.m.Failover(order[j+1:])
	}
	s.rec.connection(t, -1)
	if refusals > 0 {
		s.res.TurnedAway++
		return
	}
	s.res.Unplaced++
}

// attempt is one login attempt on backend k with left of the player's
// budget: what it cost and how it ended. lease is settled (and, unless
// joined, released) as the proxy settles it.
func (s *sim) attempt(rep *replica, k int, lease *strategy.Lease, fleet []string, left time.Duration) (outcome, time.Duration) {
	b := &s.res.Backends[k]
	if s.state[k] != alive {
		cost, err := min(s.o.DialTimeout, left), errDialTimeout
		if s.state[k] == refusing {
			cost, err = min(s.sample(k), left), errRefused
		}
		lease.Settle(0, err)
		rep.deadDials[k]++
		s.failedDial(b, cost)
		return failed, cost
	}
	dial := s.sample(k)
	rep.m.ObserveDial(s.o.Backends[k], dial, nil)
	first, wait := s.firstByteSample(k), min(rep.m.Patience(fleet, s.o.FirstResponse), left-min(dial, left))
	if first > wait {
		lease.Settle(0, errNoAnswer)
		lease.Release()
		s.failedDial(b, dial+wait)
		return failed, dial + wait
	}
	if c := s.caps[k]; c > 0 && s.active[k]+s.o.Held[s.o.Backends[k]] >= c {
		err := errFull
		if slices.Contains(s.o.CustomRefusal, s.o.Backends[k]) {
			err = errTurnedAway
		}
		lease.Settle(0, err)
		lease.Release()
		b.Refused++
		s.res.Refusals++
		return refused, dial + first
	}
	lease.Settle(first, nil)
	return joined, dial + first
}

// failedDial counts a player's attempt that failed on b after cost.
func (s *sim) failedDial(b *BackendResult, cost time.Duration) {
	b.FailedDials++
	s.res.FailedDials++
	s.res.FailedDialTime += Duration(cost)
}

// place counts player i, arriving at t, on backend k for a session.
func (s *sim) place(i int, t time.Time, k int, lease *strategy.Lease) {
	b := &s.res.Backends[k]
	s.rec.placed(k, s.active[k]+s.o.Held[s.o.Backends[k]], s.caps[k])
	s.active[k]++
	b.Players++
	s.cameBack(i, k)
	b.Peak = max(b.Peak, s.active[k])
	s.res.Timeline[i*len(s.res.Timeline)/s.o.Count].Players[k]++
	s.res.Placed++
	s.rec.connection(t, k)
	heap.Push(&s.ends, session{end: t.Add(s.length()), seq: i, k: k, lease: lease})
}

// addedLater reports whether addr's first add or remove event is an add:
// it starts outside the route. A backend removed and later added again
// starts in it.
func addedLater(events []Event, addr string) bool {
	for _, e := range events {
		if e.Backend == addr && (e.Kind == EventAdd || e.Kind == EventRemove) {
			return e.Kind == EventAdd
		}
	}
	return false
}

// player is who connection i is: itself, or i mod Population.
func (s *sim) player(i int) int {
	if s.o.Population > 0 {
		return i % s.o.Population
	}
	return i
}

// cameBack counts connection i, placed on k, as a return (and a return home)
// when its player had a session before.
func (s *sim) cameBack(i, k int) {
	if s.o.Population <= 0 {
		return
	}
	if s.homes == nil {
		s.homes = map[int]int{}
	}
	p := s.player(i)
	if prev, ok := s.homes[p]; ok {
		s.res.Returns++
		if prev == k {
			s.res.Home++
		}
	}
	s.homes[p] = k
}
