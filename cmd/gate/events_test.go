package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.minekube.com/gate/pkg/lite/events"
)

// hookSink is a webhook receiver on loopback that keeps the bodies it got.
type hookSink struct {
	mu     sync.Mutex
	bodies []string
	bad    int // bodies whose signature did not check
}

func newHookSink(t *testing.T, secret string) (*hookSink, string) {
	s := &hookSink{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.Header.Get(events.HeaderSignature) != events.Sign(secret, body) {
			s.bad++
		}
		s.bodies = append(s.bodies, string(body))
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// types lists the event types received, with the route for route events.
func (s *hookSink) types() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, b := range s.bodies {
		var e events.JSON
		_ = json.Unmarshal([]byte(b), &e)
		if strings.HasPrefix(e.Type, "route-") {
			out = append(out, e.Type+" "+e.Route)
		} else {
			out = append(out, e.Type)
		}
	}
	return out
}

func webhookYAML(url, hosts string, backend string) string {
	y := gateYAML("a.example.com", backend)
	y = strings.Replace(y, "    shutdownGrace: 0s\n", fmt.Sprintf("    shutdownGrace: 0s\n    webhooks:\n      - url: %s/hook\n        secret: k3y\n", url), 1)
	if hosts != "" {
		y = strings.Replace(y, "    routes:\n", "    routes:\n      - host: "+hosts+"\n        backend: "+backend+"\n", 1)
	}
	return y
}

// The config's webhooks get the proxy's events: the routes at start, a player's
// joined and ended, a route a reload adds; each signed, and counted in /metrics.
func TestServeSendsEventsToTheConfiguredWebhook(t *testing.T) {
	b := newFakeServer(t, 1, 20)
	sink, url := newHookSink(t, "k3y")
	g := startGate(t, webhookYAML(url, "", b.addr), "s3cret")
	p := joinAs(t, g.proxy, "a.example.com", "alice")
	if err := p.echoed(); err != nil {
		t.Fatal(err)
	}
	_ = p.c.Close()
	// The session's end and the reload are independent: the file is written once the
	// end is delivered, so the order asserted below is the order things happened.
	waitUntil(t, "the session's end delivered", func() bool { return len(sink.types()) >= 3 })
	writeFile(t, g.path, webhookYAML(url, "b.example.com", b.addr))
	want := []string{"route-added a.example.com", "joined", "ended", "route-added b.example.com"}
	waitUntil(t, "the events delivered", func() bool { return len(sink.types()) >= len(want) })
	if got := sink.types(); strings.Join(got, ",") != strings.Join(want, ",") || sink.bad != 0 {
		t.Fatalf("received %q (%d badly signed), want %q", got, sink.bad, want)
	}
	if !strings.Contains(sink.bodies[1], `"player":{"name":"alice"`) {
		t.Fatalf("joined without the player: %s", sink.bodies[1])
	}
	g.waitMetric(`gate_lite_webhook_deliveries_total{receiver="`+url+`",result="ok"}`, "4")
}
