//go:build linux

package handover

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// childMode, in the environment, makes the test binary act as a new process of the
// proxy instead of running tests (see runChild).
const childMode = "HANDOVER_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(childMode); ok {
		if err := runChild(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
