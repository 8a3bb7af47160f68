package lite_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: sessions, relays, status fetches and
// probes all have owners that wait for them, and Serve returns only after they end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
