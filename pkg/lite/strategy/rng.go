package strategy

import (
	"math/rand/v2"
	"sync"
)

// lockedRand is a seeded source owned by one strategy instance or manager.
// It is locked because Order runs concurrently; each owner has its own, so
// there is no process-wide contention and no shared global.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newLockedRand(seed uint64) *lockedRand {
	// The second PCG word is a fixed odd constant so one uint64 seed is
	// enough to reproduce a stream.
	return &lockedRand{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Uint64 returns the next value of the stream.
func (l *lockedRand) Uint64() uint64 {
	l.mu.Lock()
	v := l.r.Uint64()
	l.mu.Unlock()
	return v
}

// IntN returns a value in [0, n); n must be positive.
func (l *lockedRand) IntN(n int) int {
	l.mu.Lock()
	v := l.r.IntN(n)
	l.mu.Unlock()
	return v
}

// Int64N returns a value in [0, n); n must be positive.
func (l *lockedRand) Int64N(n int64) int64 {
	l.mu.Lock()
	v := l.r.Int64N(n)
	l.mu.Unlock()
	return v
}

// Shuffle permutes order uniformly under one lock acquisition.
func (l *lockedRand) Shuffle(order []int) {
	l.mu.Lock()
	for i := len(order) - 1; i > 0; i-- {
		j := l.r.IntN(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	l.mu.Unlock()
}
