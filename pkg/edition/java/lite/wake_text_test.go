package lite

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestStartingDisconnectSaysHowLongItUsuallyTakes(t *testing.T) {
	for _, tc := range []struct {
		typical time.Duration
		want    string
	}{
		{0, "The server mc.example.com is starting up. Please join again in a moment."},
		{38 * time.Second, "The server mc.example.com is starting up; it usually starts in about 40 seconds. Please join again in a moment."},
		{800 * time.Millisecond, "it usually starts in about 5 seconds."},
		{8200 * time.Millisecond, "it usually starts in about 10 seconds."},
		{150 * time.Second, "it usually starts in about 3 minutes."},
	} {
		frame := startingDisconnect("mc.example.com", tc.typical)
		id, payload, _, err := wire.ParseFrame(frame, 1<<16)
		if err != nil || id != 0 {
			t.Fatalf("frame %x: id %d, %v", frame, id, err)
		}
		if !strings.Contains(string(payload), tc.want) || !strings.Contains(string(payload), `"color":"red"`) {
			t.Errorf("typical %v: %s, want %q", tc.typical, payload, tc.want)
		}
	}
}
