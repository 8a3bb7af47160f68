package strategy

import "sync/atomic"

// roundRobin rotates the start of the order once per login. The failover
// after the first backend rotates too, once per full round: a backend that
// fails (before it is found out and ejected) hands its turns to each of the
// others in turn, not always to the one listed after it, so the survivors
// stay even. The cursor is
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
	order[0] = start
	if n == 1 {
		return
	}
	rest := n - 1
	shift := int((turn / uint64(n)) % uint64(rest))
	for i := 1; i < n; i++ {
		order[i] = (start + 1 + (i-1+shift)%rest) % n
	}
}
