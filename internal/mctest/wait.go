package mctest

import "time"

// WaitFor polls cond every 2ms until it holds, failing the test if d passes first.
// Tests wait on a condition like this, never on a sleep.
func WaitFor(t TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s", d, what)
			return
		case <-tick.C:
		}
	}
}
