package lite

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Regression: a refusal one second from its next token said "Try again in 1 seconds".
func TestRateLimitDisconnectSaysOneSecondInTheSingular(t *testing.T) {
	tests := []struct {
		wait time.Duration
		want string
	}{
		{0, "Try again in 1 second."},
		{300 * time.Millisecond, "Try again in 1 second."},
		{time.Second, "Try again in 1 second."},
		{time.Second + time.Millisecond, "Try again in 2 seconds."},
		{100 * time.Second, "Try again in 100 seconds."},
	}
	for _, tc := range tests {
		frame := limitDisconnect(admission.ErrRateLimited, tc.wait)
		_, payload, _, err := wire.ParseFrame(frame, len(frame))
		if err != nil {
			t.Fatalf("wait %v: %v", tc.wait, err)
		}
		if got := string(payload); !strings.Contains(got, tc.want) {
			t.Errorf("wait %v: %q, want it to contain %q", tc.wait, got, tc.want)
		}
	}
}
