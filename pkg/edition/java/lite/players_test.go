package lite_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Tnze/go-mc/bot"
	"github.com/google/uuid"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Players by name and UUID (issue 33): the Login Start is read before any backend
// is dialled, the access lists judge it, and the backend gets the same bytes.

// mctestUUID is the UUID mctest.LoginStart writes, without dashes.
const mctestUUID = "abababababababababababababababab"

// refusedQuickly logs in as name and returns the Disconnect text and how long it
// took from the last byte sent.
func refusedQuickly(t *testing.T, addr, host, name string) (string, time.Duration) {
	t.Helper()
	c := dialProxy(t, addr)
	start := time.Now()
	c.send(mctest.LoginPreamble(765, host, name))
	text := c.disconnectText()
	return text, time.Since(start)
}

// A denied name and a denied UUID each get the access list's text at once, and the
// backend is never dialled; each counts as reason "denied".
func TestDeniedPlayerIsToldAndTheBackendNeverDialled(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	count := newSessionCount()
	p := startProxy(t, oneRoute("play.example.com", b.addr).
		withLite("players: {deny: [Griefer], text: \"Banned here.\"}").
		with("players: {deny: ["+mctestUUID+"]}", "disconnect: {unavailable: \"down\"}").quotasOff().String(), proxyOpts{obs: count})
	for _, name := range []string{"griefer", "Steve"} { // by name (any case); by the UUID every mctest login has
		text, took := refusedQuickly(t, p.addr, "play.example.com", name)
		t.Logf("%s refused in %s", name, took)
		if !strings.Contains(text, "Banned here.") {
			t.Fatalf("%s was told %q, want the route's (inherited) text", name, text)
		}
	}
	_, _, rejected := count.settled(t)
	if b.Accepted() != 0 || rejected[lite.ReasonDenied] != 2 {
		t.Fatalf("backend accepted %d connections (want 0), %d refused as denied (want 2)", b.Accepted(), rejected[lite.ReasonDenied])
	}
}

// An allow list admits exactly the players on it; the global lists still apply.
func TestAllowListAdmitsExactlyTheListed(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	p := startProxy(t, oneRoute("play.example.com", b.addr).withLite("players: {deny: [Mallory]}").
		with("players: {allow: [Steve, alex, Mallory]}").quotasOff().String())
	for _, name := range []string{"Steve", "Alex"} {
		c := dialProxy(t, p.addr)
		pre := mctest.LoginPreamble(765, "play.example.com", name)
		c.send(pre)
		if got := c.readN(len(pre)); !bytes.Equal(got, pre) {
			t.Fatalf("%s: got %x", name, got)
		}
	}
	// Mallory is on the route's allow list, which wins over the global deny list
	// (mc-router's precedence); Bob is on no list.
	c := dialProxy(t, p.addr)
	c.send(mctest.LoginPreamble(765, "play.example.com", "Mallory"))
	if got := c.readN(1); len(got) != 1 {
		t.Fatal("Mallory was not admitted")
	}
	if text, _ := refusedQuickly(t, p.addr, "play.example.com", "Bob"); !strings.Contains(text, "not allowed") {
		t.Fatalf("Bob was told %q, want the default denied text", text)
	}
	if n := b.Logins(); n != 3 {
		t.Fatalf("backend saw %d logins, want 3", n)
	}
}

// Every Login Start layout since 1.7 passes through byte for byte, and the player's
// name and UUID reach the session's log line.
func TestEveryLoginStartLayoutReachesTheBackendUnchanged(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	var logs mctest.Logs
	p := startProxy(t, oneRoute("*", b.addr).quotasOff().String(), proxyOpts{log: logs.Logger(0)})
	dir := filepath.Join("wire", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "login_start_*.hex"))
	if err != nil || len(files) < 10 {
		t.Fatalf("fixtures: %v (%d)", err, len(files))
	}
	for _, f := range append(files, filepath.Join(dir, "login_1.20.4.hex")) {
		pre := loadFixture(t, f)
		hs, n, err := wire.ParseHandshake(pre)
		if err != nil {
			t.Fatal(err)
		}
		ls, _, err := wire.ParseLoginStart(pre[n:], hs.Protocol)
		if err != nil {
			t.Fatal(err)
		}
		c := dialProxy(t, p.addr)
		c.send(pre)
		if got := c.readN(len(pre)); sha256.Sum256(got) != sha256.Sum256(pre) {
			t.Fatalf("%s: the backend got %x, want %x", f, got, pre)
		}
		_ = c.Close()
		want := `"player"="` + ls.Name + `"`
		mctest.WaitFor(t, "the session's line for "+f, 5*time.Second, func() bool { return logs.Count(want) > 0 })
		if ls.HasUUID && logs.Count(`"uuid"=`) == 0 {
			t.Fatalf("%s: no uuid in %q", f, logs.Find(want))
		}
	}
}

// loadFixture reads a wire testdata hex file (hex bytes, '#' comments).
func loadFixture(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var digits strings.Builder
	for line := range strings.SplitSeq(string(raw), "\n") {
		line, _, _ = strings.Cut(line, "#")
		digits.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(digits.String())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// A Login Start that cannot be read is a clear refusal: a Login Disconnect saying
// so, counted as malformed, and no backend dialled.
func TestMalformedLoginStartIsRefusedWithAText(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	count := newSessionCount()
	p := startProxy(t, oneRoute("play.example.com", b.addr).quotasOff().String(), proxyOpts{obs: count})
	for _, bad := range [][]byte{
		wire.AppendFrame(nil, 0x00, wire.AppendString(nil, "Steve")),             // 1.20.4 without its UUID
		wire.AppendFrame(nil, 0x05, []byte("not a login start")),                 // another packet
		append([]byte{0xff, 0xff, 0x7f}, bytes.Repeat([]byte{0}, 64)...),         // a length past the cap
		wire.AppendFrame(nil, 0x00, wire.AppendString(nil, "seventeen_chars__")), // name too long
	} {
		c := dialProxy(t, p.addr)
		c.send(handshake(765, "play.example.com", wire.IntentLogin), bad)
		if text := c.disconnectText(); !strings.Contains(text, "cannot read") {
			t.Fatalf("% x: told %q", bad, text)
		}
	}
	_, _, rejected := count.settled(t)
	if b.Accepted() != 0 || rejected[lite.ReasonMalformed] != 4 {
		t.Fatalf("backend accepted %d (want 0), malformed %d (want 4)", b.Accepted(), rejected[lite.ReasonMalformed])
	}
}

// Only a player allowed on a sleeping route wakes it: another gets the asleep text
// and no wake call is made.
func TestSleepingRouteIsWokenOnlyByAnAllowedPlayer(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	p := wakeProxy(t, e, "25s", "10m", refusedAddr(t), func(y string) string {
		return strings.Replace(y, "    routes:\n", "    players: {allow: [Steve]}\n    routes:\n", 1)
	})
	waitAsleep(t, p, e.key)
	text, took := refusedQuickly(t, p.addr, "sleepy.example.com", "Mallory")
	t.Logf("Mallory told the route sleeps in %s", took)
	if !strings.Contains(text, "Asleep: join to wake") || e.wakes.Load() != 0 {
		t.Fatalf("Mallory was told %q with %d wake calls, want the asleep text and none", text, e.wakes.Load())
	}
	c := dialProxy(t, p.addr)
	pre := mctest.LoginPreamble(765, "sleepy.example.com", "Steve")
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	c.send(pre)
	if got := c.readN(len(pre)); !bytes.Equal(got, pre) {
		t.Fatalf("Steve got %x", got)
	}
	if w := e.wakes.Load(); w != 1 {
		t.Fatalf("%d wake calls, want 1 (Steve's)", w)
	}
}

// go-mc (1.20.2) logs in through the proxy: its name and UUID reach the session's
// log line; with its UUID on the deny list it is told the text and never reaches the
// backend.
func TestGoMCPlayerIdentityAndDenial(t *testing.T) {
	addr, joined := mcBackend(t)
	var logs mctest.Logs
	alex := uuid.NewSHA1(uuid.NameSpaceOID, []byte("OfflinePlayer:Alex")) // as goMCJoin claims it
	p := startProxy(t, oneRoute("survival.example.com", addr).route("closed.example.com", addr).
		with("players: {deny: ["+alex.String()+"], text: \"No Alex here.\"}").quotasOff().String(), proxyOpts{log: logs.Logger(0)})
	goMCJoin(t, p.addr, "survival.example.com", 10*time.Second, joined)
	mctest.WaitFor(t, "the player in the session's line", 5*time.Second, func() bool {
		return logs.Count(`"player"="Alex" "uuid"="`+alex.String()+`"`) == 1
	})

	c := bot.NewClient()
	c.Auth.Name, c.Auth.UUID = "Alex", alex.String()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.JoinServerWithOptions("closed.example.com:25565", bot.JoinOptions{MCDialer: proxyDialer{proxy: p.addr}, Context: ctx})
	if err == nil || !strings.Contains(err.Error(), "No Alex here.") {
		t.Fatalf("go-mc join of a denied player: %v, want the deny text", err)
	}
	select {
	case name := <-joined:
		t.Fatalf("the backend saw %s", name)
	default:
	}
}

// mc-router's allow/deny file, named by allowFile and denyFile as mc-router reads its
// one file: its README's rules hold through the proxy, and an edit applies live.
func TestMCRouterAllowDenyFileThroughTheProxy(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	path := filepath.Join(t.TempDir(), "allow-deny.json")
	write := func(friends string) {
		body := `{"global": {"denylist": [{"name": "Griefer"}]},
 "servers": {"my.server.domain": {"allowlist": [` + friends + `]},
  "my.other-server.domain": {"denylist": [{"name": "Foe"}]}}}`
		if err := os.WriteFile(path+".new", []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"name": "Friend"}`)
	p := startProxy(t, oneRoute("my.server.domain", b.addr).route("my.other-server.domain", b.addr).
		withLite("players: {allowFile: '"+path+"', denyFile: '"+path+"'}").quotasOff().String())
	joins := func(host, name string) bool {
		c := dialProxy(t, p.addr)
		pre := mctest.LoginPreamble(765, host, name)
		c.send(pre)
		got := make([]byte, len(pre))
		_, err := io.ReadFull(c.R, got)
		return err == nil && bytes.Equal(got, pre) // echoed by the backend, not a Login Disconnect
	}
	for _, tc := range []struct {
		host, name string
		want       bool
	}{
		{"my.server.domain", "Friend", true}, {"my.server.domain", "Anyone", false}, {"my.server.domain", "Griefer", false},
		{"my.other-server.domain", "Anyone", true}, {"my.other-server.domain", "Foe", false}, {"my.other-server.domain", "Griefer", false},
	} {
		if got := joins(tc.host, tc.name); got != tc.want {
			t.Errorf("%s on %s: joined %v, want %v", tc.name, tc.host, got, tc.want)
		}
	}
	write(`{"name": "Friend"}, {"name": "Anyone"}`)
	mctest.WaitFor(t, "the edited file in force", 5*time.Second, func() bool { return joins("my.server.domain", "Anyone") })
}
