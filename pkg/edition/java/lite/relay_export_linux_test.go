//go:build linux

package lite

// PipeCounts reports the splice pipes the process has open and how many of them are
// idle in the pool (the rest are lent to directions that are moving bytes).
func PipeCounts() (open, idle int) { return pipes.counts() }

// PollerRunning reports whether the relay poller (one goroutine, one epoll
// descriptor) is running.
func PollerRunning() bool {
	pollers.mu.Lock()
	defer pollers.mu.Unlock()
	return pollers.p != nil
}

// SetParking turns parking of idle upstream directions on (the default) or off for
// sessions that start afterwards.
func SetParking(on bool) { parkingOff.Store(!on) }
