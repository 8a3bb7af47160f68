package lite_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/operator"
)

// The operator layer (issue 34) in the connection path: bans and maintenance are
// judged when the Login Start is read, status answers carry maintenance and
// overrides, drained backends get no new players. Live sessions are never touched.

// setLayer puts entries in force the way cmd/gate does: the config in force, with
// the layer attached, through Reload.
func setLayer(t *testing.T, p *proxy, es ...operator.Entry) {
	t.Helper()
	s := operator.State{}
	for _, e := range es {
		if err := operator.Validate(&e, time.Now()); err != nil {
			t.Fatal(err)
		}
		s = s.Apply(operator.Change{Entry: e})
	}
	c := *p.Config()
	c.Lite.Operator.Layer = operator.Compile(s)
	if err := p.Reload(&c); err != nil {
		t.Fatal(err)
	}
}

// admitted logs in as name and reports whether the backend's echo of the login
// came back (a refusal is a Disconnect, then close).
func admitted(t *testing.T, addr, host, name string) bool {
	t.Helper()
	c := dialProxy(t, addr)
	defer c.Close()
	pre := mctest.LoginPreamble(765, host, name)
	c.send(pre)
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	got := make([]byte, len(pre))
	_, err := io.ReadFull(c.br, got)
	return err == nil && bytes.Equal(got, pre)
}

// echoes checks that a live session still carries bytes both ways, exactly.
func echoes(t *testing.T, c *client, tag string) {
	t.Helper()
	msg := []byte("still here " + tag)
	c.send(msg)
	if got := c.readN(len(msg)); !bytes.Equal(got, msg) {
		t.Fatalf("session %s: echo %q, want %q", tag, got, msg)
	}
}

func TestMaintenanceRefusesNewLoginsKeepsLiveSessionsAndLetsTheBypassIn(t *testing.T) {
	b := newBackend(t, `{"version":{"name":"1.20.4","protocol":765},"players":{"max":20,"online":3},"description":{"text":"real"},"favicon":"data:image/png;base64,iVBORw0KGgo="}`)
	p := startProxy(t, oneRoute("play.example.com", b.addr).with("cachePingTTL: -1").quotasOff().String())
	var live []*client
	for range 5 {
		c := dialProxy(t, p.addr)
		c.login("play.example.com")
		live = append(live, c)
	}
	setLayer(t, p, operator.Entry{Kind: operator.Maintenance, Target: "play.example.com", Text: "Back at 18:00", Bypass: []string{"Admin"}})
	c := dialProxy(t, p.addr)
	c.send(mctest.LoginPreamble(765, "play.example.com", "Visitor"))
	if text := c.disconnectText(); !strings.Contains(text, "Back at 18:00") {
		t.Fatalf("a new login during maintenance was told %q", text)
	}
	admin := dialProxy(t, p.addr)
	pre := mctest.LoginPreamble(765, "play.example.com", "admin")
	admin.send(pre)
	if got := admin.readN(len(pre)); !bytes.Equal(got, pre) {
		t.Fatal("the bypassed name did not reach the backend byte for byte")
	}
	for i, c := range live {
		echoes(t, c, string(rune('a'+i)))
	}
	js, err := dialProxy(t, p.addr).status(765, "play.example.com")
	if err != nil || !strings.Contains(js, "Back at 18:00") || !strings.Contains(js, "iVBORw0KGgo=") || !strings.Contains(js, `"online":3`) {
		t.Fatalf("ping during maintenance: %s, %v (want the text as MOTD, the real favicon and count)", js, err)
	}
	setLayer(t, p)
	dialProxy(t, p.addr).login("play.example.com")
	if js, _ := dialProxy(t, p.addr).status(765, "play.example.com"); !strings.Contains(js, `"real"`) {
		t.Fatalf("ping after maintenance: %s", js)
	}
}

func TestBanWithExpiryRefusesThenAdmitsTheSamePlayer(t *testing.T) {
	b := newBackend(t, statusJSON("b", 0, 10))
	p := startProxy(t, oneRoute("play.example.com", b.addr).quotasOff().String())
	end := time.Now().Add(5 * time.Second)
	setLayer(t, p, operator.Entry{Kind: operator.Ban, Target: "Griefer", Text: "griefing", Expires: &end})
	c := dialProxy(t, p.addr)
	c.send(mctest.LoginPreamble(765, "play.example.com", "GRIEFER"))
	if text := c.disconnectText(); !strings.Contains(text, "griefing") || !strings.Contains(text, "ends in about 5 seconds") {
		t.Fatalf("banned player told %q", text)
	}
	if b.Accepted() != 0 {
		t.Fatal("the backend was dialled for a banned player")
	}
	start := time.Now()
	waitFor(t, "the ban to end", 8*time.Second, func() bool { return admitted(t, p.addr, "play.example.com", "Griefer") })
	if at := time.Now(); at.Before(end) {
		t.Fatalf("admitted at %s, before the ban's end %s", at, end)
	}
	t.Logf("admitted %s after the first refusal (ban of 5s)", time.Since(start).Round(10*time.Millisecond))
}

func TestDrainedBackendGetsNoNewPlayersKeepsItsSessionsAndUndrainRestores(t *testing.T) {
	a, b := newBackend(t, statusJSON("a", 0, 500)), newBackend(t, statusJSON("b", 0, 500))
	p := startProxy(t, oneRoute("play.example.com", a.addr, b.addr).with("strategy: round-robin").quotasOff().String())
	var onA []*client
	for range 4 {
		c := dialProxy(t, p.addr)
		c.login("play.example.com")
		onA = append(onA, c)
	}
	waitFor(t, "sessions on both", 2*time.Second, func() bool { return a.Active() == 2 && b.Active() == 2 })
	setLayer(t, p, operator.Entry{Kind: operator.Drain, Target: a.addr})
	if got := dialsDuring(a, func() { loginTimes(t, p, 200) }); got != 0 {
		t.Fatalf("drained backend got %d of the next 200 logins, want 0", got)
	}
	if a.Active() != 2 {
		t.Fatalf("drained backend has %d sessions, want its 2", a.Active())
	}
	for i, c := range onA {
		echoes(t, c, string(rune('a'+i)))
	}
	var why string
	for _, bi := range p.Backends() {
		if bi.Backend == a.addr {
			why = bi.Reason + ": " + bi.Why
			if bi.Eligible || bi.Reason != "drained" {
				t.Fatalf("balance view of the drained backend: %+v", bi)
			}
		}
	}
	t.Logf("balance view: %s", why)
	setLayer(t, p)
	if got := dialsDuring(a, func() { loginTimes(t, p, 20) }); got != 10 {
		t.Fatalf("after undrain the backend got %d of 20 round-robin logins, want 10", got)
	}
}

// loginTimes logs in n times, each to its echo, then closes.
func loginTimes(t *testing.T, p *proxy, n int) {
	t.Helper()
	for range n {
		c := dialProxy(t, p.addr)
		c.login("play.example.com")
		_ = c.Close()
	}
}

// dialsDuring counts the connections b accepted while f ran.
func dialsDuring(b *backend, f func()) int64 {
	before := b.Accepted()
	f()
	return b.Accepted() - before
}
