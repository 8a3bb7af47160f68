package wake

import (
	"context"
	"sync"
	"time"
)

// Local returns the Holders of a proxy that runs alone: no other replica
// holds sessions, so ClaimSleep is granted once per period (from the start or
// the latest Woke to the next Woke) unless this process holds sessions. Give
// each Coordinator its own; replicas need a shared Holders (a Lease).
func Local() Holders {
	return &local{sessions: map[string]int{}, claimed: map[string]bool{}}
}

type local struct {
	mu       sync.Mutex
	sessions map[string]int
	claimed  map[string]bool
}

func (l *local) Hold(_ context.Context, key string, sessions int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sessions > 0 {
		l.sessions[key] = sessions
	} else {
		delete(l.sessions, key)
	}
	return nil
}

func (l *local) Woke(_ context.Context, key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.claimed, key)
	return nil
}

func (l *local) ClaimSleep(_ context.Context, key string, _ time.Duration) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.claimed[key] || l.sessions[key] > 0 {
		return false, nil
	}
	l.claimed[key] = true
	return true, nil
}
