package lite_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// recorder keeps a copy of every event, grouped by connection.
type recorder struct {
	mu     sync.Mutex
	byConn map[uint64][]lite.Event
}

func (r *recorder) Observe(e *lite.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byConn == nil {
		r.byConn = map[uint64][]lite.Event{}
	}
	r.byConn[e.ConnID] = append(r.byConn[e.ConnID], *e)
}

func (r *recorder) closed() [][]lite.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]lite.Event
	for _, evs := range r.byConn {
		if evs[len(evs)-1].Kind == lite.EventClosed {
			out = append(out, evs)
		}
	}
	slices.SortFunc(out, func(a, b []lite.Event) int { return int(a[0].ConnID) - int(b[0].ConnID) })
	return out
}

func kinds(evs []lite.Event) string {
	var ks []string
	for _, e := range evs {
		ks = append(ks, e.Kind.String())
	}
	return strings.Join(ks, ",")
}

func TestSessionEvents(t *testing.T) {
	b := newBackend(t, statusJSON("ev", 1, 2))
	rec := &recorder{}
	p := startProxy(t, oneRoute("*.example.com", refusedAddr(t), b.addr).String(), proxyOpts{obs: rec})

	c := dialProxy(t, p.addr)
	c.login("ev.example.com")
	_ = c.Close()
	waitFor(t, "login connection closed", 5*time.Second, func() bool { return len(rec.closed()) == 1 })

	c = dialProxy(t, p.addr)
	c.send(handshake(765, "nope.org", wire.IntentLogin))
	c.disconnectText()
	waitFor(t, "rejected connection closed", 5*time.Second, func() bool { return len(rec.closed()) == 2 })

	if _, err := dialProxy(t, p.addr).status(765, "ev.example.com"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "status connection closed", 5*time.Second, func() bool { return len(rec.closed()) == 3 })

	conns := rec.closed()
	if got, want := kinds(conns[0]), "accepted,routed,dial,dial,joined,ended,closed"; got != want {
		t.Fatalf("login events %s, want %s", got, want)
	}
	dead, ok := conns[0][2], conns[0][3]
	if dead.Err == nil || ok.Err != nil || ok.Backend != b.addr || ok.BackendTemplate != b.addr {
		t.Fatalf("dial events %+v / %+v", dead, ok)
	}
	ended := conns[0][5]
	if ended.Reason != lite.ReasonClientClosed || ended.BytesUp == 0 || ended.BytesDown == 0 || ended.Route != "*.example.com" {
		t.Fatalf("ended event %+v", ended)
	}
	if got, want := kinds(conns[1]), "accepted,rejected,closed"; got != want {
		t.Fatalf("unknown host events %s, want %s", got, want)
	}
	if r := conns[1][1].Reason; r != lite.ReasonNoRoute {
		t.Fatalf("reject reason %q", r)
	}
	if got, want := kinds(conns[2]), "accepted,routed,status,closed"; got != want {
		t.Fatalf("status events %s, want %s", got, want)
	}
	if src := conns[2][2].Source; src != lite.SourceBackend {
		t.Fatalf("status source %q", src)
	}
}
