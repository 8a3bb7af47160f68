package wake

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// cluster plays the shared Holders of several replicas (what a Lease does
// on Kubernetes): each replica's holds, and one sleep claim per period.
type cluster struct {
	mu      sync.Mutex
	holds   map[string]map[string]int // replica -> key -> sessions
	claimed map[string]bool
	refused atomic.Int64
}

func newCluster() *cluster {
	return &cluster{holds: map[string]map[string]int{}, claimed: map[string]bool{}}
}

// replica is the Holders one replica sees.
type replica struct {
	c    *cluster
	name string
}

func (c *cluster) replica(name string) Holders {
	c.holds[name] = map[string]int{}
	return replica{c, name}
}

func (r replica) Hold(_ context.Context, key string, n int) error {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.holds[r.name][key] = n
	return nil
}

func (r replica) Woke(_ context.Context, key string) error {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	delete(r.c.claimed, key)
	return nil
}

func (r replica) ClaimSleep(_ context.Context, key string, _ time.Duration) (bool, error) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	busy := r.c.claimed[key]
	for _, hs := range r.c.holds {
		busy = busy || hs[key] > 0
	}
	if busy {
		r.c.refused.Add(1)
		return false, nil
	}
	r.c.claimed[key] = true
	return true, nil
}

func (c *cluster) held(replica, key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.holds[replica][key]
}

func TestReplicaNeverSleepsATargetAnotherReplicaHolds(t *testing.T) {
	cl := newCluster()
	clk := mctest.NewTimerClock(time.Time{})
	f := &fakeTarget{key: key} // one engine object, two replicas calling it
	var cs []*Coordinator
	for _, name := range []string{"a", "b"} {
		c := NewCoordinator(Options{Holders: cl.replica(name), Now: clk.Now, AfterFunc: clk.AfterFunc})
		t.Cleanup(c.Close)
		c.Bind([]Binding{{Target: f, IdleAfter: time.Minute}})
		cs = append(cs, c)
	}
	a, b := cs[0], cs[1]

	// Players on replica B only; A's reports lag (players unknown), so A's
	// countdown runs out while B holds a session.
	end := b.Session(key)
	mctest.WaitFor(t, "B's hold", wait, func() bool { return cl.held("b", key) == 1 })
	for range 10 {
		before := cl.refused.Load()
		clk.Advance(time.Minute)
		mctest.WaitFor(t, "A's refused claim", wait, func() bool { return cl.refused.Load() > before && !busy(a) })
	}
	if n := f.sleeps.Load(); n != 0 {
		t.Fatalf("%d sleep calls while replica B holds a session", n)
	}
	if a.Asleep(key) {
		t.Fatal("A believes the target asleep while B holds it")
	}

	end()
	mctest.WaitFor(t, "B's release", wait, func() bool { return cl.held("b", key) == 0 })
	for range 5 {
		clk.Advance(time.Minute)
		mctest.WaitFor(t, "both quiet", wait, func() bool { return !busy(a) && !busy(b) })
	}
	if n := f.sleeps.Load(); n != 1 {
		t.Fatalf("%d sleep calls after the last session ended, want exactly 1", n)
	}
}

// busy reports whether c's key has a sleep, wake or hold call under way.
func busy(c *Coordinator) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return callsUnderWay(c.targets[key])
}
