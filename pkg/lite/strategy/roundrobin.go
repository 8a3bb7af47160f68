package strategy

import "sync/atomic"

// roundRobin rotates the start of the order once per login. The cursor is
// atomic so concurrent logins never lose an update, status pings read it
// without moving it, and it starts at a random offset so that replicas with
// the same config do not rotate in lockstep.
type roundRobin struct {
	cursor atomic.Uint64
}

func newRoundRobin(e Env) *roundRobin {
	s := &roundRobin{}
	s.cursor.Store(newLockedRand(e.Seed).Uint64() >> 1)
	return s
}

func (*roundRobin) Inputs() Inputs { return 0 }

func (s *roundRobin) Order(cands []Candidate, intent Intent, order []int) {
	n := len(order)
	if n == 0 {
		return
	}
	var turn uint64
	if intent == IntentStatus {
		turn = s.cursor.Load()
	} else {
		turn = s.cursor.Add(1) - 1
	}
	start := int(turn % uint64(n))
	for i := range order {
		order[i] = (start + i) % n
	}
}
