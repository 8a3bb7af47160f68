package mctest_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pires/go-proxyproto"
	"go.uber.org/goleak"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBackendAnswersStatusWithChosenHost(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{Status: mctest.StatusJSON("hi", 2, 20)})
	body, err := mctest.Dial(t, b.Addr()).Status(765, "play.example.com")
	if err != nil || !strings.Contains(body, `"text":"hi"`) {
		t.Fatalf("status %q, %v", body, err)
	}
	b.SetStatusFunc(func() string { return mctest.StatusJSON("computed", 0, 1) })
	if body, err := mctest.Ping(b.Addr(), 765, "x"); err != nil || !strings.Contains(body, "computed") {
		t.Fatalf("status func: %q, %v", body, err)
	}
	if b.StatusRequests() != 2 || b.Accepted() != 2 || b.Logins() != 0 {
		t.Fatalf("status %d accepted %d logins %d", b.StatusRequests(), b.Accepted(), b.Logins())
	}
}

func TestBackendEchoesAndRecordsLogins(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{})
	c := mctest.Dial(t, b.Addr())
	pre := mctest.LoginPreamble(765, "a.example.com", "Steve")
	if _, err := c.Write(append(pre, "play"...)); err != nil {
		t.Fatal(err)
	}
	want := append(pre, "play"...)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c.R, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("echo %x, %v; want %x", got, err, want)
	}
	rec := b.NextLogin(t)
	if rec.Handshake.Address != "a.example.com" || !bytes.Equal(rec.Raw, mctest.Handshake(765, "a.example.com", wire.IntentLogin)) {
		t.Fatalf("recorded %+v", rec)
	}
	mctest.WaitFor(t, "counters", 5*time.Second, func() bool {
		return b.Logins() == 1 && b.Active() == 1 && b.BytesIn() == int64(len(want)) && b.BytesOut() == int64(len(want))
	})
	_ = c.Close()
	mctest.WaitFor(t, "session closed", 5*time.Second, func() bool { return b.Active() == 0 })
}

func TestBackendReadsProxyHeader(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{ProxyProtocol: true})
	c := mctest.Dial(t, b.Addr())
	h := proxyproto.HeaderProxyFromAddrs(2, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 5}, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 6})
	if _, err := h.WriteTo(c); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(mctest.LoginPreamble(765, "pp", "Alex")); err != nil {
		t.Fatal(err)
	}
	if rec := b.NextLogin(t); rec.Proxy == nil || rec.Proxy.Version != 2 {
		t.Fatalf("proxy header %+v", rec.Proxy)
	}
}

// dialOutcome dials and reads once: what a proxy would see.
func dialOutcome(addr string, send []byte) string {
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return "timeout"
		}
		return "refused"
	}
	defer c.Close()
	_, _ = c.Write(send)
	_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	n, err := c.Read(make([]byte, 1))
	switch {
	case n > 0:
		return "answer"
	case err == io.EOF:
		return "eof"
	case err != nil && strings.Contains(err.Error(), "reset"):
		return "reset"
	default:
		return "silence"
	}
}

func TestFaults(t *testing.T) {
	login := mctest.LoginPreamble(765, "a", "Steve")
	status := append(mctest.Handshake(765, "a", wire.IntentStatus), wire.AppendStatusRequest(nil)...)
	tests := []struct {
		fault mctest.Fault
		send  []byte
		want  string
	}{
		{mctest.FaultNone, login, "answer"},
		{mctest.FaultRefused, login, "refused"},
		{mctest.FaultBlackhole, login, "timeout"},
		{mctest.FaultAcceptClose, nil, "eof"},
		{mctest.FaultResetAfterHandshake, login, "reset"},
		{mctest.FaultHang, login, "silence"},
		{mctest.FaultStall, login, "silence"},
		{mctest.FaultHangStatus, status, "silence"},
		{mctest.FaultHangStatus, login, "answer"},
		{mctest.FaultFlood, nil, "answer"},
	}
	for _, tc := range tests {
		t.Run(tc.fault.String(), func(t *testing.T) {
			b := mctest.NewBackend(t, mctest.Options{Fault: tc.fault})
			if got := dialOutcome(b.Addr(), tc.send); got != tc.want {
				t.Fatalf("%s: got %s, want %s", tc.fault, got, tc.want)
			}
		})
	}
}

func TestCrashMidSessionResetsOnPlayBytes(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{Fault: mctest.FaultCrashMidSession})
	c := mctest.Dial(t, b.Addr())
	pre := mctest.LoginPreamble(765, "a", "Steve")
	if _, err := c.Write(pre); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c.R, make([]byte, len(pre))); err != nil {
		t.Fatalf("preamble echo: %v", err)
	}
	_, _ = c.Write([]byte("play"))
	if n, err := c.R.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("want the session ended, got n=%d err=%v", n, err)
	}
}

func TestScriptRunsPerConnection(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{Script: func(c *net.TCPConn) { _, _ = c.Write([]byte("hello")) }})
	for range 2 {
		got, err := io.ReadAll(mctest.Dial(t, b.Addr()))
		if err != nil || string(got) != "hello" {
			t.Fatalf("script: %q, %v", got, err)
		}
	}
	if b.Accepted() != 2 {
		t.Fatalf("accepted %d", b.Accepted())
	}
}

func TestDisconnectText(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{Script: func(c *net.TCPConn) {
		_, _ = c.Write(wire.AppendFrame(nil, wire.IDLoginDisconnect, wire.AppendString(nil, `{"text":"bye"}`)))
	}})
	if text, err := mctest.Dial(t, b.Addr()).Disconnect(); err != nil || text != `{"text":"bye"}` {
		t.Fatalf("disconnect %q, %v", text, err)
	}
}

func TestCloseEndsOpenSessionsAndRestartsOnSameAddr(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{Fault: mctest.FaultStall})
	c := mctest.Dial(t, b.Addr())
	mctest.WaitFor(t, "accepted", 5*time.Second, func() bool { return b.Accepted() == 1 })
	b.Close()
	if _, err := c.R.ReadByte(); err == nil {
		t.Fatal("connection survived Close")
	}
	b.Close() // idempotent
	again := mctest.NewBackend(t, mctest.Options{Addr: b.Addr()})
	if _, err := mctest.Ping(again.Addr(), 765, "x"); err != nil {
		t.Fatal(err)
	}
}

func TestClockIsSafeForConcurrentUse(t *testing.T) {
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	c := mctest.NewClock(start)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Second)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	if got := c.Now().Sub(start); got != 400*time.Second {
		t.Fatalf("advanced %v", got)
	}
	c.Set(start)
	if !c.Now().Equal(start) || mctest.NewClock(time.Time{}).Now().IsZero() {
		t.Fatal("Set or default start")
	}
}

// fakeTB records a failure instead of ending the test.
type fakeTB struct {
	failed   bool
	cleanups []func()
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }
func (f *fakeTB) Cleanup(fn func())     { f.cleanups = append(f.cleanups, fn) }

func TestWaitForFailsAtDeadline(t *testing.T) {
	var f fakeTB
	mctest.WaitFor(&f, "never", 20*time.Millisecond, func() bool { return false })
	if !f.failed {
		t.Fatal("WaitFor returned without failing")
	}
}
