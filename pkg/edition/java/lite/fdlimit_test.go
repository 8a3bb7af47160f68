package lite

import (
	"strings"
	"testing"
)

func TestFDAdviceNamesBothNumbersAndTheKey(t *testing.T) {
	msg := fdAdvice(10000, 20000, 20000)
	for _, want := range []string{"config.quota.maxConnections", "10000", "20064", "limit is 20000", "9968"} {
		if !strings.Contains(msg, want) {
			t.Errorf("advice %q does not name %q", msg, want)
		}
	}
	for _, tc := range []struct {
		max         int
		limit, hard uint64
	}{{10000, 1 << 20, 1 << 20}, {0, 100, 100}, {1000, 2064, 4096}} {
		if msg := fdAdvice(tc.max, tc.limit, tc.hard); msg != "" {
			t.Errorf("fdAdvice(%d, %d) = %q, want none", tc.max, tc.limit, msg)
		}
	}
}
