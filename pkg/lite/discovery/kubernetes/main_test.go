package kubernetes

import (
	"testing"

	"go.uber.org/goleak"
)

// Every informer, watch and keep-alive connection a source starts must be gone
// when its Run returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
