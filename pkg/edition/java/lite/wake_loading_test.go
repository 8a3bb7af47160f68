package lite_test

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// loadingMOTD is what withLoading's loadingMotd renders to.
const loadingMOTD = `{"text":"Starting: join again in a moment"}`

func withLoading(y string) string {
	return strings.Replace(y, "        holdFor:", "        loadingMotd: \"Starting: join again in a moment\"\n        holdFor:", 1)
}

// TestPingWhileWakingShowsLoadingMOTD: pings of a route follow its target's
// phase: awake, the backend's own status; asleep, the asleep MOTD; while a
// held login wakes it, the loading MOTD, favicon and version still the
// server's (regression: a ping during a wake showed the asleep text, telling
// the player to join to wake what was already waking).
func TestPingWhileWakingShowsLoadingMOTD(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = time.Hour // the test starts the server itself, once it has pinged
	e.start()
	p := wakeProxy(t, e, "25s", "100ms", refusedAddr(t), withLoading)
	ping := func(phase, want string) {
		t.Helper()
		body, err := mctest.Ping(p.addr, 765, "sleepy.example.com")
		if err != nil {
			t.Fatalf("ping while %s: %v", phase, err)
		}
		desc, fav, _, online, _ := decodeStatus(t, body)
		if desc != want || fav != realFavicon || online != 0 {
			t.Fatalf("ping while %s: %s\nwant description %s with the real favicon, nobody online", phase, body, want)
		}
	}
	ping("awake", `{"text":"the real server"}`)
	waitFor(t, "target asleep", 10*time.Second, func() bool { return e.sleeps.Load() == 1 && phase(p, e.key) == wake.PhaseAsleep })
	ping("asleep", asleepMOTD)

	c := mctest.Dial(t, p.addr)
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	pre := mctest.LoginPreamble(765, "sleepy.example.com", "Steve")
	if _, err := c.Write(pre); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the login to wake the target", 10*time.Second, func() bool { return phase(p, e.key) == wake.PhaseWaking })
	ping("waking", loadingMOTD)
	ping("still waking", loadingMOTD)

	e.start()
	if err := echoed(c, pre); err != nil {
		t.Fatalf("held login: %v", err)
	}
	ping("awake again", `{"text":"the real server"}`)
}
