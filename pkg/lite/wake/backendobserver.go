package wake

import (
	"context"
	"net"
	"slices"
	"sync"
	"time"
)

// DialFunc opens a connection (net.Dialer.DialContext's signature).
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// dialEach bounds one backend's dial of a backendObserver: a black-holed
// backend answers nothing, and a running server accepts at once.
const dialEach = 3 * time.Second

// backendObserver is the Observer of a target whose engine cannot say
// whether it runs (a command, a webhook): it runs if one of its routes'
// static backends accepts a connection. Without it such a target was taken as
// awake after every restart of the proxy, and for idleAfter its pings got
// "Can't connect to server" instead of the asleep answer.
type backendObserver struct {
	Target
	backends []string
	dial     DialFunc
}

var _ Observer = backendObserver{}

// Running dials every backend at once and reports whether one accepted. A
// refusal or a timeout is "not running", not an error: that is the answer
// sought.
func (b backendObserver) Running(parent context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(parent, dialEach)
	answered := make(chan bool, len(b.backends))
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for _, addr := range b.backends {
		wg.Go(func() {
			conn, err := b.dial(ctx, "tcp", addr)
			if err == nil {
				_ = conn.Close()
			}
			answered <- err == nil
		})
	}
	for range b.backends {
		if <-answered {
			return true, nil
		}
	}
	return false, parent.Err()
}

// observed gives each target that is no Observer and whose routes list static
// backends a backendObserver over all of them, so that Coordinator.Bind asks
// whether it runs when it is new.
func observed(targets []Target, rs []Route, dial DialFunc) []Target {
	backends := map[string][]string{} // by Target.Key
	for i, t := range targets {
		if t == nil {
			continue
		}
		for _, b := range rs[i].Backends {
			if !slices.Contains(backends[t.Key()], b) {
				backends[t.Key()] = append(backends[t.Key()], b)
			}
		}
	}
	out := make([]Target, len(targets))
	for i, t := range targets {
		out[i] = t
		if _, ok := t.(Observer); t == nil || ok || len(backends[t.Key()]) == 0 {
			continue
		}
		out[i] = backendObserver{Target: t, backends: backends[t.Key()], dial: dial}
	}
	return out
}
