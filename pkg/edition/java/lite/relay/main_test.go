package relay

import (
	"testing"

	"go.uber.org/goleak"
)

// No pipe leaves a goroutine behind: workers and pollers end with the pipes that
// needed them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
