package mctest

import (
	"context"
	"time"
)

// Run runs fn (a source's or server's Run) in a goroutine until the test ends:
// then it cancels fn's context and fails the test if fn returned an error or
// did not return within 10 seconds.
func Run(t TB, what string, fn func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not return within 10s of its context ending", what)
		}
	})
}
