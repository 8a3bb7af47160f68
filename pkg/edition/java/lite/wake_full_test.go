package lite_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/wake"
)

// fullAfterWake is a wake target whose server, once woken, answers status requests
// (so it passes the readiness check) and every login with "server full".
type fullAfterWake struct {
	t      *testing.T
	addr   string
	logins atomic.Int64
	srv    atomic.Pointer[mctest.Backend]
}

func (f *fullAfterWake) Key() string                               { return "exec full" }
func (f *fullAfterWake) Running(context.Context) (bool, error)     { return false, nil }
func (f *fullAfterWake) Sleep(context.Context, wake.Request) error { return nil }

// Wake starts the server at once, on the calling goroutine: nothing outlives the
// test's cleanup.
func (f *fullAfterWake) Wake(context.Context, wake.Request) (wake.Result, error) {
	if f.srv.Load() == nil {
		f.srv.Store(mctest.NewBackend(f.t, mctest.Options{Addr: f.addr, Script: f.serve}))
	}
	return wake.Result{}, nil
}

func (f *fullAfterWake) serve(c *net.TCPConn) {
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 0, 512)
	for {
		n, err := c.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		hs, _, perr := wire.ParseHandshake(buf)
		switch {
		case perr == nil && hs.Intent == wire.IntentStatus:
			_, _ = c.Write(wire.AppendStatusResponse(nil, []byte(sleepyStatus)))
			return
		case perr == nil:
			f.logins.Add(1)
			_, _ = c.Write(wire.AppendLoginDisconnect(nil, []byte(`{"text":"The server is full!"}`)))
			return
		case err != nil:
			return
		}
	}
}

// Regression: a backend that answered "full" right after a wake was settled as a
// success on the wake path (the strategies saw a served player) and was then asked
// again for the same login by the ordinary path. One login attempt now serves both
// paths: the refusal is a failure, the backend is asked once, the player sees its text.
func TestFullAnswerRightAfterAWakeIsAFailureAndNotRetried(t *testing.T) {
	f := &fullAfterWake{t: t, addr: refusedAddr(t)}
	factory := func(wake.Spec) (wake.Target, error) { return f, nil }
	p := startProxy(t, wakeConfig(f.addr, "10s", "10m", refusedAddr(t)),
		proxyOpts{wakeTargets: factory})
	c := dialProxy(t, p.addr)
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	c.send(mctest.LoginPreamble(765, "sleepy.example.com", "Steve"))
	if got := c.disconnectText(); got != `{"text":"The server is full!"}` {
		t.Fatalf("player got %q, want the backend's full text", got)
	}
	if n := f.logins.Load(); n != 1 {
		t.Fatalf("the woken backend got %d logins for one player, want 1", n)
	}
	for _, s := range p.Manager().Snapshot() {
		if s.Addr == f.addr && s.FirstByte != 0 {
			t.Fatalf("the refusal was settled as a served login (first byte %v)", s.FirstByte)
		}
	}
	for _, b := range p.Backends() {
		if b.Backend == f.addr && b.Failures == 0 {
			t.Fatalf("the refusal was not counted as the backend's failure: %+v", b)
		}
	}
}
