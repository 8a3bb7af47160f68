package docker

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"go.minekube.com/gate/internal/enginetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	enginetest.RemoveImage()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
