package lite_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
)

// The anti-bot checks of issue 33 (package antibot), through real sockets: each
// refusal is a Login Disconnect with its text, counted under its reason, and no
// backend is dialled for it.

// botLogin logs in as name from local (nil: any loopback address) and reports
// whether the backend answered (its echo of the preamble) or else the
// Disconnect text. The connection is closed when it returns unless kept.
func botLogin(t *testing.T, proxy, host, name string, local net.IP, keep bool) (joined bool, text string, c *mctest.Client) {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	conn, err := d.Dial("tcp", proxy)
	if err != nil {
		t.Fatalf("dial from %v: %v", local, err)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	c = mctest.NewClient(conn)
	if !keep {
		defer conn.Close()
	} else {
		t.Cleanup(func() { _ = conn.Close() })
	}
	pre := mctest.LoginPreamble(765, host, name)
	if _, err := conn.Write(pre); err != nil {
		t.Fatal(err)
	}
	hs := mctest.Handshake(765, host, 2)
	head := make([]byte, 1)
	if _, err := c.R.Read(head); err != nil {
		t.Fatalf("%s: read: %v", name, err)
	}
	_ = c.R.UnreadByte()
	if peek, _ := c.R.Peek(len(hs)); bytes.Equal(peek, hs) {
		_, _ = c.R.Discard(len(pre))
		return true, "", c
	}
	text, err = c.Disconnect()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return false, text, c
}

func TestInvalidNameRefusedOnlyOnARouteThatAsks(t *testing.T) {
	strict, open := newBackend(t, statusJSON("s", 0, 10)), newBackend(t, statusJSON("o", 0, 10))
	count := newSessionCount()
	p := startProxy(t, oneRoute("strict.example.com", strict.addr).with("players: {validNames: true}").
		route("open.example.com", open.addr).quotasOff().String(), proxyOpts{obs: count})
	for _, name := range []string{"ab", "bad-name", "Stéve"} {
		if joined, text, _ := botLogin(t, p.addr, "strict.example.com", name, nil, false); joined || !strings.Contains(text, "not a valid Minecraft name") {
			t.Fatalf("%q on the strict route: joined %v, told %q", name, joined, text)
		}
		if joined, text, _ := botLogin(t, p.addr, "open.example.com", name, nil, false); !joined {
			t.Fatalf("%q on the open route was refused: %q", name, text)
		}
	}
	if joined, _, _ := botLogin(t, p.addr, "strict.example.com", "Steve_01", nil, false); !joined {
		t.Fatal("a valid name was refused on the strict route")
	}
	_, _, rejected := count.settled(t)
	if strict.Accepted() != 1 || rejected[lite.ReasonInvalidName] != 3 {
		t.Fatalf("strict backend accepted %d (want 1, the valid name), %d refused as invalid-name (want 3)", strict.Accepted(), rejected[lite.ReasonInvalidName])
	}
}

func TestLoginRatePerNameRefusesTheThirdLogin(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	clock := mctest.NewClock(time.Time{})
	count := newSessionCount()
	p := startProxy(t, oneRoute("play.example.com", b.addr).
		withLite("players: {loginRate: {ops: 0.1, burst: 2}, loginRateText: \"Slow down, $1.\"}").quotasOff().String(),
		proxyOpts{obs: count, now: clock.Now})
	for i, name := range []string{"Steve", "steve", "STEVE"} {
		joined, text, _ := botLogin(t, p.addr, "play.example.com", name, nil, false)
		if joined != (i < 2) {
			t.Fatalf("login %d as %s: joined %v, told %q", i, name, joined, text)
		}
		if i == 2 && !strings.Contains(text, "Slow down") {
			t.Fatalf("told %q, want the configured text", text)
		}
	}
	if joined, _, _ := botLogin(t, p.addr, "play.example.com", "Alex", nil, false); !joined {
		t.Fatal("another name was throttled")
	}
	clock.Advance(10 * time.Second) // one token back at 0.1/s
	if joined, _, _ := botLogin(t, p.addr, "play.example.com", "Steve", nil, false); !joined {
		t.Fatal("Steve was still throttled after the refill")
	}
	_, _, rejected := count.settled(t)
	if rejected[lite.ReasonNameRate] != 1 || b.Logins() != 4 {
		t.Fatalf("%d refused as name-rate (want 1), backend saw %d logins (want 4)", rejected[lite.ReasonNameRate], b.Logins())
	}
}

// A name's second session is refused while its first lasts, and admitted once the
// first has ended (released where the relay ends the session).
func TestSessionsPerNameReleasedWhenTheSessionEnds(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	count := newSessionCount()
	p := startProxy(t, oneRoute("play.example.com", b.addr).with("players: {maxSessionsPerName: 1}").quotasOff().String(),
		proxyOpts{obs: count})
	joined, _, first := botLogin(t, p.addr, "play.example.com", "Steve", nil, true)
	if !joined {
		t.Fatal("the first session was refused")
	}
	if joined, text, _ := botLogin(t, p.addr, "play.example.com", "Steve", nil, false); joined || !strings.Contains(text, "already connected") {
		t.Fatalf("the second session: joined %v, told %q", joined, text)
	}
	_ = first.Close()
	count.settled(t) // every connection, the first session's too, has ended
	if joined, text, _ := botLogin(t, p.addr, "play.example.com", "Steve", nil, false); !joined {
		t.Fatalf("after the first session ended: told %q", text)
	}
	if _, _, rejected := count.settled(t); rejected[lite.ReasonNameSessions] != 1 || b.Logins() != 2 {
		t.Fatalf("%d refused as name-sessions (want 1), backend saw %d logins (want 2)", rejected[lite.ReasonNameSessions], b.Logins())
	}
}

// floodAddr is the i-th bot address, all in 127.0.0.0/8 (loopback on Linux).
func floodAddr(i int) net.IP { return net.IPv4(127, byte(1+i>>16), byte(i>>8), byte(i)) }

// legitAddr is the k-th player's address, apart from the bots'.
func legitAddr(k int) net.IP { return net.IPv4(127, 200, 0, byte(1+k)) }

// 200 logins/s with random names from new addresses, for 2 s on the proxy's clock,
// with attack mode above 50/s: at most 50/s reach the backend, and 20 players who
// reconnect (as a real client does when the player joins again) all get in.
func TestAttackModeKeepsAFloodOutAndLetsReconnectingPlayersIn(t *testing.T) {
	const perSecond, seconds, above, players = 200, 2, 50, 20
	b := newBackend(t, statusJSON("b", 0, 10))
	clock := mctest.NewClock(time.Time{})
	count := newSessionCount()
	p := startProxy(t, oneRoute("play.example.com", b.addr).
		withLite(fmt.Sprintf("players: {attackMode: {above: %d, window: 10s}}", above)).quotasOff().String(),
		proxyOpts{obs: count, now: clock.Now})
	rng := rand.New(rand.NewPCG(33, 3))
	step := time.Second / perSecond
	const start, spacing, reconnectAfter = 100, 10, 40 // in flood logins: attack mode is on by 100
	refusedFirst, joinedLegit := 0, 0
	for i := range perSecond * seconds {
		if k := (i - start) / spacing; i >= start && (i-start)%spacing == 0 && k < players {
			if joined, text, _ := botLogin(t, p.addr, "play.example.com", fmt.Sprintf("Player%d", k), legitAddr(k), false); !joined && strings.Contains(text, "reconnect") {
				refusedFirst++
			}
		}
		if k := (i - start - reconnectAfter) / spacing; i >= start+reconnectAfter && (i-start-reconnectAfter)%spacing == 0 && k < players {
			if joined, text, _ := botLogin(t, p.addr, "play.example.com", fmt.Sprintf("Player%d", k), legitAddr(k), false); joined {
				joinedLegit++
			} else {
				t.Errorf("player %d was refused on reconnect: %q", k, text)
			}
		}
		botLogin(t, p.addr, "play.example.com", fmt.Sprintf("b%08x", rng.Uint32()), floodAddr(i), false)
		clock.Advance(step)
	}
	_, _, rejected := count.settled(t)
	bots := b.Logins() - int64(joinedLegit)
	t.Logf("bots reached the backend %d times of %d; %d refused as attack-reconnect; players: %d told to reconnect, %d joined",
		bots, perSecond*seconds, rejected[lite.ReasonAttackReconnect], refusedFirst, joinedLegit)
	if bots > above*seconds {
		t.Fatalf("%d bot logins reached the backend in %ds, want at most %d", bots, seconds, above*seconds)
	}
	if refusedFirst != players || joinedLegit != players {
		t.Fatalf("%d players were told to reconnect and %d joined, want %d and %d", refusedFirst, joinedLegit, players, players)
	}
}

// A login whose backend is down holds its name's session only until it is told so:
// the player's next try is not refused as already connected.
func TestSessionsPerNameGivenBackWhenTheBackendIsDown(t *testing.T) {
	count := newSessionCount()
	p := startProxy(t, oneRoute("play.example.com", mctest.RefusedAddr(t)).
		with("players: {maxSessionsPerName: 1}", "disconnect: {unavailable: \"down\"}").quotasOff().String(), proxyOpts{obs: count})
	for i := range 3 {
		if joined, text, _ := botLogin(t, p.addr, "play.example.com", "Steve", nil, false); joined || !strings.Contains(text, "down") {
			t.Fatalf("try %d: joined %v, told %q, want the unavailable text", i, joined, text)
		}
		count.settled(t)
	}
	if _, _, rejected := count.settled(t); rejected[lite.ReasonNameSessions] != 0 || rejected[lite.ReasonUnavailable] != 3 {
		t.Fatalf("rejected %v, want 3 unavailable and no name-sessions", rejected)
	}
}
