package feed_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/events/feed"
)

const host = "play.example.com"

// world is a proxy with one route to a fake backend, its events fed to a bus.
type world struct {
	addr  string
	proxy *lite.Lite
	bus   *events.Bus
	live  *events.Sessions
	feed  *feed.Feed
}

// newWorld starts the proxy; with feedOn false it has no events at all (today's
// proxy, for comparison).
func newWorld(t testing.TB, feedOn bool) *world {
	t.Helper()
	b := mctest.NewBackend(t, mctest.Options{})
	cfg, _, err := config.ParseEnv(fmt.Appendf(nil, `
config:
  lite:
    enabled: true
    shutdownGrace: 0s
    sessionLogEvery: 0
    routes:
      - host: %s
        backend: %s
  quota:
    connections: {enabled: false}
    logins: {enabled: false}
`, host, b.Addr()), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{bus: events.NewBus(0), live: events.NewSessions()}
	w.feed = feed.New(w.bus, w.live)
	o := lite.Options{Seed: 1, Log: logr.Discard()}
	if feedOn {
		o.Observer = w.feed
	}
	if w.proxy, err = lite.New(cfg, o); err != nil {
		t.Fatal(err)
	}
	w.feed.Routes(w.proxy.Routes())
	ln := mctest.Listen(t)
	w.addr = ln.Addr().String()
	mctest.Run(t, "proxy", func(ctx context.Context) error { return w.proxy.Serve(ctx, ln) })
	mctest.WaitFor(t, "proxy ready", 5*time.Second, w.proxy.Ready)
	return w
}

// join logs name in and returns the session once the backend's echo arrived,
// with the time from the first byte sent to the first byte back.
func (w *world) join(t testing.TB, name string) (net.Conn, time.Duration) {
	t.Helper()
	c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pre := mctest.LoginPreamble(765, host, name)
	start := time.Now()
	if _, err := c.Write(pre); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, make([]byte, len(pre))); err != nil {
		t.Fatalf("%s: no echo from the backend: %v", name, err)
	}
	return c, time.Since(start)
}

// session joins and leaves; it returns the join time.
func (w *world) session(t testing.TB, name string) time.Duration {
	t.Helper()
	c, took := w.join(t, name)
	_ = c.Close()
	return took
}

// receiver is a webhook receiver on loopback that records what it got.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []delivery
	hang chan struct{} // when not nil, every request waits for it
}

type delivery struct {
	body      []byte
	signature string
	event     string
}

func newReceiver(t *testing.T, hang bool) *receiver {
	r := &receiver{}
	if hang {
		r.hang = make(chan struct{})
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if r.hang != nil {
			select {
			case <-r.hang:
			case <-time.After(10 * time.Second):
			}
		}
		r.mu.Lock()
		r.got = append(r.got, delivery{body: body, signature: req.Header.Get(events.HeaderSignature),
			event: req.Header.Get(events.HeaderEvent)})
		r.mu.Unlock()
	}))
	t.Cleanup(func() {
		if r.hang != nil {
			close(r.hang)
		}
		r.srv.Close()
	})
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// webhooks starts receivers for w's bus and stops them when the test ends.
func (w *world) webhooks(t *testing.T, o events.WebhookOptions, hooks ...events.Webhook) *events.Webhooks {
	wh := events.NewWebhooks(w.bus, o)
	wh.Set(hooks)
	t.Cleanup(wh.Close)
	return wh
}

// pct is the q-th percentile of ds.
func pct(ds []time.Duration, q int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*q/100)]
}
