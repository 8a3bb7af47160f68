package lite_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
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

// npm's minecraft-protocol on a long hold: 1.20.5, 1.21.1 and 26.1 players wait past holdFor
// for a server that starts 4 s after the one wake call, answer the proxy's
// keep-alives while parked (the 26.1 player sees a notice saying why it waits),
// follow the Transfer back to the address they used, and reach the server as
// ordinary logins (intent 2); a 1.20.4 player gets the starting Disconnect.
func TestTransferNodeLongHold(t *testing.T) {
	modules := mctest.NodeModules(t)
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = 4 * time.Second
	p := wakeProxy(t, e, "1s", "10m", refusedAddr(t), func(y string) string {
		y = strings.Replace(y, "holdFor: 1s", "holdFor: 1s\n        transferHoldFor: 30s", 1)
		// The players type the proxy's IP: following the Transfer needs no DNS.
		y = strings.Replace(y, "- host: 'sleepy.example.com'", "- host: ['sleepy.example.com', '127.0.0.1']", 1)
		return strings.Replace(y, "connectionTimeout: 2s", "connectionTimeout: 2s\n  readTimeout: 3s", 1)
	})
	waitAsleep(t, p, e.key)
	ip, port, _ := net.SplitHostPort(p.addr)
	old := make(chan mctest.BotResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, _ := mctest.Bots{Addr: p.addr, Host: "127.0.0.1", Count: 1, NamePrefix: "old", Version: "1.20.4"}.Run(ctx, modules)
		old <- append(res, mctest.BotResult{})[0]
	}()
	versions := []string{"1.20.5", "26.1", "1.21.1"}
	steps := make([][]mctest.TransferStep, len(versions))
	errs := make([]error, len(versions))
	var wg sync.WaitGroup
	for i, v := range versions {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			steps[i], errs[i] = mctest.FollowTransfer(ctx, modules, p.addr, ip, v, "parked"+strconv.Itoa(i))
		})
	}
	wg.Wait()
	for i := range versions {
		s := steps[i]
		if errs[i] != nil || len(s) < 2 || s[0].Event != "transfer" || s[0].Host != ip || strconv.Itoa(s[0].Port) != port || s[1].Event != "reconnected" {
			t.Fatalf("%s player: steps %+v (%v), want a transfer to %s then a reconnect", versions[i], s, errs[i], p.addr)
		}
	}
	checkNotices(t, versions, steps)
	for range versions {
		got := e.server().NextLogin(t)
		if got.Handshake.Intent != wire.IntentLogin || got.Handshake.Address != ip {
			t.Fatalf("server got %+v, want an ordinary login for %s", got.Handshake, ip)
		}
	}
	if r := <-old; r.Outcome != "kicked" || !strings.Contains(r.Reason, "is starting up") {
		t.Fatalf("1.20.4 player: %+v, want the starting Disconnect", r)
	}
	if w := e.wakes.Load(); w != 1 {
		t.Fatalf("%d wake calls, want 1", w)
	}
}

// checkNotices: a parked 26.1 player (its version has dialogs) was told why it
// waits; the others were shown nothing.
func checkNotices(t *testing.T, versions []string, steps [][]mctest.TransferStep) {
	t.Helper()
	for i, v := range versions {
		d := steps[i][0].Dialog
		switch {
		case v == "26.1" && (d == nil || d.Type != "minecraft:notice" || !strings.Contains(d.Body.Contents, "is starting up")):
			t.Errorf("26.1 player was shown %+v, want a notice saying the server is starting", d)
		case v != "26.1" && d != nil:
			t.Errorf("%s player was shown a dialog %+v; its version has none", v, d)
		case d != nil:
			t.Logf("%s player, parked, saw %q: %q", v, d.Title, d.Body.Contents)
		}
	}
}
