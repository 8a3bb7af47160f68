package lite_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Pings of sleeping routes: answered, never woken, fed into the players count.

// TestPingsToSleepingRouteNeverWakeIt: once the route's server is asleep, 1,000 pings
// make no wake call, and every answer is its last good status (favicon, version, max
// players) with the asleep MOTD and nobody online.
func TestPingsToSleepingRouteNeverWakeIt(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.start() // up at first: the proxy learns its status
	p := wakeProxy(t, e, "25s", "100ms", refusedAddr(t))
	if body, err := mctest.Ping(p.addr, 765, "sleepy.example.com"); err != nil || !strings.Contains(body, "the real server") {
		t.Fatalf("ping while awake: %q, %v", body, err)
	}
	// players.online 0 was reported: after idleAfter the target is put to sleep.
	waitFor(t, "target asleep", 10*time.Second, func() bool { return e.sleeps.Load() == 1 && phase(p, e.key) == wake.PhaseAsleep })

	const pings, workers = 1000, 8
	var next atomic.Int64
	var bad atomic.Int64
	var firstBad atomic.Pointer[string]
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= pings {
				body, err := mctest.Ping(p.addr, 765, "sleepy.example.com")
				if err == nil {
					desc, fav, ver, online, maxPlayers := decodeStatus(t, body)
					if desc == asleepMOTD && fav == realFavicon && ver == "Paper 1.20.4" && online == 0 && maxPlayers == 42 {
						continue
					}
					err = errors.New(body)
				}
				if bad.Add(1) == 1 {
					s := err.Error()
					firstBad.Store(&s)
				}
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Fatalf("%d of %d answers wrong; first: %s", n, pings, *firstBad.Load())
	}
	if w := e.wakes.Load(); w != 0 {
		t.Fatalf("%d wake calls for %d pings, want 0", w, pings)
	}
	t.Logf("%d pings to the sleeping route: 0 wake calls, %d asleep answers with the real favicon", pings, pings)
}

// TestPingToSleepingRouteWithoutLastGoodShowsFallback: a route asleep since the proxy
// started has no status of its own yet: its fallback answers, with the asleep MOTD.
func TestPingToSleepingRouteWithoutLastGoodShowsFallback(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	p := wakeProxy(t, e, "25s", "10m", refusedAddr(t))
	waitAsleep(t, p, e.key)
	body, err := mctest.Ping(p.addr, 765, "sleepy.example.com")
	if err != nil {
		t.Fatal(err)
	}
	desc, fav, ver, online, _ := decodeStatus(t, body)
	if desc != asleepMOTD || fav != "" || ver != "fb" || online != 0 {
		t.Fatalf("status = %s", body)
	}
	if e.wakes.Load() != 0 {
		t.Fatal("a ping woke the target")
	}
}

// TestBlockedWakeLeavesOtherRoutesResponsive: a webhook target that hangs until its own
// timeout holds 50 players; meanwhile a status storm on another route is answered as
// fast as without it (p99 compared), and the held players get the Disconnect.
func TestBlockedWakeLeavesOtherRoutesResponsive(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.block = 4 * time.Second
	other := newBackend(t, statusJSON("other", 1, 10))
	p := wakeProxy(t, e, "2s", "10m", other.addr)
	waitAsleep(t, p, e.key)

	const storm = 400
	before := statusP99(t, p.addr, storm)
	var during time.Duration
	var texts []string
	var wg sync.WaitGroup
	wg.Go(func() { texts, _ = heldDisconnects(t, p, 50) })
	waitFor(t, "wake call under way", 5*time.Second, func() bool { return e.wakes.Load() == 1 })
	during = statusP99(t, p.addr, storm)
	wg.Wait()
	for i, txt := range texts {
		if !strings.Contains(txt, "is starting up") {
			t.Fatalf("player %d got %q", i, txt)
		}
	}
	t.Logf("status p99 of another route, %d pings: %v without a blocked wake, %v with 50 logins held on a hanging webhook",
		storm, before.Round(time.Microsecond), during.Round(time.Microsecond))
	if during > 10*before+50*time.Millisecond {
		t.Fatalf("p99 %v during the blocked wake, %v before", during, before)
	}
}

// statusP99 pings awake.example.com n times from 4 workers and returns the p99.
func statusP99(t *testing.T, addr string, n int) time.Duration {
	t.Helper()
	times := make([]time.Duration, n)
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				start := time.Now()
				if _, err := mctest.Ping(addr, 765, "awake.example.com"); err != nil {
					failed.Add(1)
				}
				times[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		t.Fatalf("%d of %d pings failed", f, n)
	}
	return p99(times)
}

// TestStatusAnswersFeedPlayersOnline: players.online of the route's status answers
// reaches the Coordinator, from a ping's fetch and from a health probe alike, and a
// server with players is not counted down to sleep.
func TestStatusAnswersFeedPlayersOnline(t *testing.T) {
	withPlayers := strings.Replace(sleepyStatus, `"online":0`, `"online":3`, 1)
	for _, tc := range []struct {
		name string
		edit func(string) string
		ping bool
	}{
		{"ping", nil, true},
		{"health probe", func(y string) string {
			return strings.Replace(y, "        holdFor:", "        healthCheck: {enabled: true, interval: 200ms, timeout: 100ms}\n        holdFor:", 1)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, "webhook sleepy", withPlayers)
			e.start()
			var edits []func(string) string
			if tc.edit != nil {
				edits = append(edits, tc.edit)
			}
			p := wakeProxy(t, e, "25s", "10m", refusedAddr(t), edits...)
			if tc.ping {
				if _, err := mctest.Ping(p.addr, 765, "sleepy.example.com"); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "3 players reported", 5*time.Second, func() bool {
				s, ok := wakeState(p, e.key)
				return ok && s.PlayersOnline == 3 && s.Phase == wake.PhaseAwake
			})
		})
	}
}
