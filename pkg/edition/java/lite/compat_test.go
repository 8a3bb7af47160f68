package lite_test

import (
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Gate Lite behaviours ported from its own test cases, checked from outside
// through real sockets.

// `host: ”` loads and routes only the players whose handshake carries no host.
func TestEmptyHostPatternRoutesOnlyEmptyHost(t *testing.T) {
	empty := newBackend(t, statusJSON("empty", 0, 1))
	named := newBackend(t, statusJSON("named", 0, 1))
	p := startProxy(t, oneRoute("", empty.addr).route("play.example.com", named.addr).String())

	dialProxy(t, p.addr).login("")
	if got := empty.next(t); got.Handshake.Address != "" {
		t.Fatalf("empty-host backend got host %q", got.Handshake.Address)
	}
	dialProxy(t, p.addr).login("play.example.com")
	named.next(t)

	c := dialProxy(t, p.addr)
	c.send(handshake(765, "other.example.com", wire.IntentLogin), loginStart("Steve"))
	c.disconnectText()
	if n := empty.Logins(); n != 1 {
		t.Fatalf("empty-host backend got %d logins, want 1 (a named host must not reach it)", n)
	}
}

// rawStatusBackend answers every status request with frame, as written, and
// then pongs: a Status Response the standard fake backend would not send.
func rawStatusBackend(t *testing.T, frame []byte) string {
	t.Helper()
	b := mctest.NewBackend(t, mctest.Options{Script: func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		r := mctest.NewClient(c)
		for {
			id, payload, err := r.ReadFrame()
			if err != nil {
				return
			}
			switch {
			case id == wire.IDStatusRequest && len(payload) == 0:
				_, _ = c.Write(frame)
			case id == wire.IDPing:
				_, _ = c.Write(wire.AppendFrame(nil, wire.IDPing, payload))
				return
			}
		}
	}})
	return b.Addr()
}

// Gate #297: a backend with BetterCompatibilityChecker (or similar) appends
// data after the JSON string of its Status Response; the ping still works.
func TestStatusResponseWithTrailingBytes(t *testing.T) {
	json := statusJSON("modded", 2, 20)
	payload := wire.AppendString(nil, json)
	payload = append(payload, wire.AppendString(nil, `{"releaseType":"unknown","projectId":925200}`)...)
	addr := rawStatusBackend(t, wire.AppendFrame(nil, wire.IDStatusRequest, payload))
	p := startProxy(t, statusConfig(addr))

	body, err := dialProxy(t, p.addr).status(765, "mc.example.com")
	if err != nil {
		t.Fatalf("status through the proxy: %v", err)
	}
	if body != json {
		t.Fatalf("status = %s, want the backend's JSON without the trailer %s", body, json)
	}
}

// Gate renders `fallback.players.sample` when every backend is down.
func TestFallbackSampleRendered(t *testing.T) {
	p := startProxy(t, oneRoute("play.example.com", refusedAddr(t)).with(`fallback:
  motd: Back soon
  players:
    online: 1
    max: 20
    sample:
      - {name: Notch, id: 069a79f4-44e9-4726-a5be-fca90e38aaf5}`).withTop("connectionTimeout: 500ms").String())
	body, err := dialProxy(t, p.addr).status(765, "play.example.com")
	if err != nil {
		t.Fatal(err)
	}
	want := `"players":{"max":20,"online":1,"sample":[{"name":"Notch","id":"069a79f4-44e9-4726-a5be-fca90e38aaf5"}]}`
	if !strings.Contains(body, want) {
		t.Fatalf("fallback status %s\nwant it to contain %s", body, want)
	}
}

// Shutdown logs one line when it starts (cause, live sessions, grace) and one
// when done (ended by themselves, closed at the end of the grace).
func TestShutdownLogsStartAndEnd(t *testing.T) {
	b := newBackend(t, "")
	var logs mctest.Logs
	rec := &endRecorder{}
	p := startProxy(t, oneRoute("*", b.addr).withLite("shutdownGrace: 2s").String(), proxyOpts{log: logs.Logger(0), obs: rec})
	leaving, staying := dialProxy(t, p.addr), dialProxy(t, p.addr)
	leaving.login("a.example.com")
	staying.login("b.example.com")

	stopped := make(chan error, 1)
	go func() { stopped <- p.stop() }()
	waitFor(t, "shutdown begun", 5*time.Second, func() bool { return !p.Ready() })
	_ = leaving.Close()
	waitFor(t, "the leaving session ended", 5*time.Second, func() bool { return rec.ends.Load() == 1 })
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	start := logs.Find(`"msg"="shutting down`)
	if len(start) != 1 || !strings.Contains(start[0], `"sessions"=2`) || !strings.Contains(start[0], `"grace"="2s"`) || !strings.Contains(start[0], `"cause"="context canceled"`) {
		t.Fatalf("start lines %q", start)
	}
	done := logs.Find(`"msg"="shutdown complete"`)
	if len(done) != 1 || !strings.Contains(done[0], `"endedByThemselves"=1 "closedAtGraceEnd"=1`) {
		t.Fatalf("done lines %q", done)
	}
}

// endRecorder counts closed connections.
type endRecorder struct{ ends atomic.Int64 }

func (r *endRecorder) Observe(e *lite.Event) {
	if e.Kind == lite.EventClosed {
		r.ends.Add(1)
	}
}

// Gate accepts `$n` anywhere in a backend, the port included, and fills it
// when dialling; the port is checked after expansion.
func TestBackendTemplateInPort(t *testing.T) {
	b := newBackend(t, "")
	_, port, _ := net.SplitHostPort(b.addr)
	spare := newBackend(t, "")
	var logs mctest.Logs
	p := startProxy(t, oneRoute("p*-*.example.com", "127.0.0.1:$1$2").
		route("*.*.example.com", "$1:$2", spare.addr).
		route("*.example.com", "127.0.0.1:$1", spare.addr).withTop("connectionTimeout: 1s").String(), proxyOpts{log: logs.Logger(0)})

	for name, host := range map[string]string{
		"port from two captures": "p" + port[:2] + "-" + port[2:] + ".example.com",
		"port from one capture":  port + ".example.com",
	} {
		t.Run(name, func(t *testing.T) {
			dialProxy(t, p.addr).login(host)
			if got := b.next(t).Handshake.Address; got != host {
				t.Fatalf("backend saw host %q, want %q", got, host)
			}
		})
	}
	// '$1:$2' does not write its host out, so the guard refuses the loopback address
	// the player chose there, although other routes name 127.0.0.1 (package reach):
	// the login fails over to the spare.
	t.Run("host and port from captures may not choose loopback", func(t *testing.T) {
		host := "127.0.0.1." + port + ".example.com"
		dialProxy(t, p.addr).login(host)
		if got := spare.next(t).Handshake.Address; got != host {
			t.Fatalf("spare saw host %q, want %q", got, host)
		}
		if n := b.Logins(); n != 2 {
			t.Fatalf("backend chosen by captures has %d logins, want the 2 of the routes that name its host", n)
		}
	})
	t.Run("port out of range after expansion fails over", func(t *testing.T) {
		dialProxy(t, p.addr).login("99999.example.com")
		spare.next(t)
		lines := logs.Find("backend skipped: unusable address after $n expansion")
		if len(lines) == 0 || !strings.Contains(lines[0], `"backend"="127.0.0.1:99999"`) || !strings.Contains(lines[0], "port is not a number in 1-65535") {
			t.Fatalf("log lines %q", lines)
		}
	})
}

// A `$n` beyond the captures stays literal, as in Gate: that backend cannot be
// dialled (its log line names it) and the next one serves the player.
func TestBackendTemplateBeyondCapturesStaysLiteral(t *testing.T) {
	spare := newBackend(t, "")
	var logs mctest.Logs
	p := startProxy(t, oneRoute("play.example.com", "127.0.0.1:$1", spare.addr).String(), proxyOpts{log: logs.Logger(0)})
	dialProxy(t, p.addr).login("play.example.com")
	spare.next(t)
	if lines := logs.Find(`"backend"="127.0.0.1:$1"`); len(lines) == 0 {
		t.Fatalf("no log line names the literal backend: %q", logs.Find("backend"))
	}
}
