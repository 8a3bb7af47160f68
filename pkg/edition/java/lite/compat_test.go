package lite_test

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Gate Lite behaviours ported from its own test cases, checked from outside
// through real sockets.

// `host: ”` loads and routes only the players whose handshake carries no host.
func TestEmptyHostPatternRoutesOnlyEmptyHost(t *testing.T) {
	empty := newBackend(t, statusJSON("empty", 0, 1))
	named := newBackend(t, statusJSON("named", 0, 1))
	p := startProxy(t, fill(`
config:
  lite:
    enabled: true
    routes:
      - host: ''
        backend: {{e}}
      - host: play.example.com
        backend: {{n}}
`, "e", empty.addr, "n", named.addr))

	dialProxy(t, p.addr).login("")
	if got := empty.next(t); got.hs.Address != "" {
		t.Fatalf("empty-host backend got host %q", got.hs.Address)
	}
	dialProxy(t, p.addr).login("play.example.com")
	named.next(t)

	c := dialProxy(t, p.addr)
	c.send(handshake(765, "other.example.com", wire.IntentLogin), loginStart("Steve"))
	c.disconnectText()
	if n := empty.logins.Load(); n != 1 {
		t.Fatalf("empty-host backend got %d logins, want 1 (a named host must not reach it)", n)
	}
}

// rawStatusBackend answers every connection's status request with frame, as
// written, and then pongs. It is for Status Responses the harness backend
// would not send.
func rawStatusBackend(t *testing.T, frame []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				r := &client{t: t, Conn: c, br: bufio.NewReader(c)}
				for {
					id, payload, err := r.frame()
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
			})
		}
	})
	return ln.Addr().String()
}

// Gate #297: a backend with BetterCompatibilityChecker (or similar) appends
// data after the JSON string of its Status Response; the ping still works.
func TestStatusResponseWithTrailingBytes(t *testing.T) {
	json := statusJSON("modded", 2, 20)
	payload := wire.AppendString(nil, json)
	payload = append(payload, wire.AppendString(nil, `{"releaseType":"unknown","projectId":925200}`)...)
	addr := rawStatusBackend(t, wire.AppendFrame(nil, wire.IDStatusRequest, payload))
	p := startProxy(t, fill(statusConfig, "b", addr))

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
	p := startProxy(t, fill(`
config:
  connectionTimeout: 500ms
  lite:
    enabled: true
    routes:
      - host: play.example.com
        backend: {{dead}}
        fallback:
          motd: Back soon
          players:
            online: 1
            max: 20
            sample:
              - {name: Notch, id: 069a79f4-44e9-4726-a5be-fca90e38aaf5}
`, "dead", refusedAddr(t)))
	body, err := dialProxy(t, p.addr).status(765, "play.example.com")
	if err != nil {
		t.Fatal(err)
	}
	want := `"players":{"max":20,"online":1,"sample":[{"name":"Notch","id":"069a79f4-44e9-4726-a5be-fca90e38aaf5"}]}`
	if !strings.Contains(body, want) {
		t.Fatalf("fallback status %s\nwant it to contain %s", body, want)
	}
}
