package main

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine a test starts (HTTP servers, watchers, proxies) must be gone
// when the tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
