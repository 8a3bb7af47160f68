package lite_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// npm's minecraft-protocol on 1.20.5, 1.21.1 and the newest it speaks: a redirect
// route logs the client in and sends it on; following the Transfer as the vanilla
// client does, it lands on the other route's backend (intent 3, the named host). A
// 1.19 client is told the address instead.
func TestTransferNodeClientFollowsRedirect(t *testing.T) {
	modules := mctest.NodeModules(t)
	_, old, landing, to := redirectProxy(t)
	host, port, _ := net.SplitHostPort(to)
	for _, tc := range []struct {
		version  string
		protocol int32
	}{{"1.20.5", 766}, {"1.21.1", 767}, {"26.1", 775}} {
		t.Run(tc.version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			steps, err := mctest.FollowTransfer(ctx, modules, to, "old.example.com", tc.version, "walker")
			if err != nil || len(steps) < 2 || steps[0].Event != "transfer" || steps[1].Event != "reconnected" {
				t.Fatalf("steps %+v (%v), want transfer then reconnected", steps, err)
			}
			if steps[0].Host != host || strconv.Itoa(steps[0].Port) != port {
				t.Fatalf("transferred to %s:%d, want %s", steps[0].Host, steps[0].Port, to)
			}
			got := landing.next(t)
			if got.Handshake.Intent != wire.IntentTransfer || got.Handshake.Address != host || got.Handshake.Protocol != tc.protocol {
				t.Fatalf("landing backend got %+v", got.Handshake)
			}
			t.Logf("%s: transferred to %s:%d, landed with %+v", tc.version, steps[0].Host, steps[0].Port, got.Handshake)
		})
	}
	t.Run("1.19", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		steps, err := mctest.FollowTransfer(ctx, modules, to, "old.example.com", "1.19", "oldtimer")
		if err != nil || len(steps) != 1 || steps[0].Event != "kicked" || !strings.Contains(steps[0].Reason, to) {
			t.Fatalf("steps %+v (%v), want kicked with the address %s", steps, err, to)
		}
	})
	if n := old.Accepted(); n != 0 {
		t.Fatalf("the redirect route's backend was dialled %d times", n)
	}
}
