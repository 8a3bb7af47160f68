package kubewake

import (
	"testing"

	"go.uber.org/goleak"
)

// Every connection a Client opened must be gone after Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
