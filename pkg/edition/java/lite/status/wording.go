package status

import (
	"strconv"
	"time"
)

// About says d the way a player reads it in a Disconnect: "40 seconds" (to the
// nearest 5, at least 5) under a minute and a half, else "2 minutes".
func About(d time.Duration) string {
	if d < 90*time.Second {
		n := max(5, int((d+2500*time.Millisecond)/(5*time.Second))*5)
		return strconv.Itoa(n) + " seconds"
	}
	return strconv.Itoa(int((d+30*time.Second)/time.Minute)) + " minutes"
}

// RetryIn says a wait in whole seconds, rounded up and at least one: "1 second",
// "5 seconds".
func RetryIn(wait time.Duration) string {
	n := max(1, int((wait+time.Second-1)/time.Second))
	if n == 1 {
		return "1 second"
	}
	return strconv.Itoa(n) + " seconds"
}
