package feed_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/events"
)

const secret = "s3cret"

// A receiver gets joined and ended of every session, joined first, each body
// signed with the secret; the player's name and UUID are in them.
func TestWebhookGetsJoinedAndEndedOfEverySessionInOrderSigned(t *testing.T) {
	w := newWorld(t, true)
	r := newReceiver(t, false)
	w.webhooks(t, events.WebhookOptions{}, events.Webhook{URL: r.srv.URL + "/hook?token=x", Types: mustTypes(t, "joined", "ended"),
		Secret: secret, Timeout: 5 * time.Second})
	const n = 100
	for i := range n {
		w.session(t, fmt.Sprintf("player%d", i))
	}
	mctest.WaitFor(t, "every event delivered", 10*time.Second, func() bool { return len(r.deliveries()) == 2*n })
	seen := map[uint64]string{} // conn -> last type
	names := map[uint64]string{}
	for _, d := range r.deliveries() {
		if d.signature != events.Sign(secret, d.body) {
			t.Fatalf("signature %q does not sign %s", d.signature, d.body)
		}
		var e events.JSON
		if err := json.Unmarshal(d.body, &e); err != nil {
			t.Fatal(err)
		}
		if e.Player == nil || e.Route != host || e.Backend == "" || e.Client == "" || d.event != e.Type {
			t.Fatalf("event without its context: %s", d.body)
		}
		switch prev := seen[e.Conn]; {
		case e.Type == "joined" && prev == "":
			names[e.Conn] = e.Player.Name
		case e.Type == "ended" && prev == "joined" && names[e.Conn] == e.Player.Name:
		default:
			t.Fatalf("conn %d: %s after %q", e.Conn, d.body, prev)
		}
		seen[e.Conn] = e.Type
	}
	if len(seen) != n {
		t.Fatalf("%d sessions told, want %d", len(seen), n)
	}
}

// format: mc-router sends mc-router's payload: connect and disconnect with
// status success, the server the player asked for, the player and the backend.
func TestWebhookMCRouterFormat(t *testing.T) {
	w := newWorld(t, true)
	r := newReceiver(t, false)
	w.webhooks(t, events.WebhookOptions{}, events.Webhook{URL: r.srv.URL, Types: mustTypes(t, "connect", "disconnect"),
		Timeout: 5 * time.Second, Format: events.FormatMCRouter})
	w.session(t, "Steve")
	mctest.WaitFor(t, "connect and disconnect", 10*time.Second, func() bool { return len(r.deliveries()) == 2 })
	for i, want := range []string{"connect", "disconnect"} {
		var p map[string]any
		if err := json.Unmarshal(r.deliveries()[i].body, &p); err != nil {
			t.Fatal(err)
		}
		player, _ := p["player"].(map[string]any)
		client, _ := p["client"].(map[string]any)
		if p["event"] != want || p["status"] != "success" || p["server"] != host || p["backend"] == "" ||
			player["name"] != "Steve" || player["uuid"] != "abababab-abab-abab-abab-abababababab" ||
			client["host"] != "127.0.0.1" || client["port"] == nil || p["timestamp"] == nil {
			t.Fatalf("payload %d: %v", i, p)
		}
	}
}

// A receiver that hangs for 10s does not slow joins: its queue fills, the events
// past it are dropped and counted. (The p99s are reported, not asserted: the
// machine is shared.)
func TestHangingWebhookLeavesJoinTimesAndCountsDrops(t *testing.T) {
	const n = 300
	plainW, w := newWorld(t, true), newWorld(t, true) // both with events; one has the webhook
	r := newReceiver(t, true)
	wh := w.webhooks(t, events.WebhookOptions{Queue: 16, Attempts: 1}, events.Webhook{URL: r.srv.URL, Types: events.AllTypes,
		Timeout: 10 * time.Second})
	// Alternated, and in turn first, so that both see the same moments of a shared
	// machine (a session's teardown overlaps the next join).
	plain, hooked := make([]time.Duration, n), make([]time.Duration, n)
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		if i%2 == 0 {
			plain[i], hooked[i] = plainW.session(t, name), w.session(t, name)
		} else {
			hooked[i], plain[i] = w.session(t, name), plainW.session(t, name)
		}
	}
	t.Logf("join p50/p99: %s/%s without a webhook, %s/%s with one that hangs",
		pct(plain, 50), pct(plain, 99), pct(hooked, 50), pct(hooked, 99))
	// At most one request in flight and 16 queued: the rest of the 2n events dropped.
	name := events.Receiver(r.srv.URL)
	mctest.WaitFor(t, "the drops counted", 5*time.Second, func() bool { return wh.Stats(name).Dropped >= 2*n-17 })
	if st := wh.Stats(name); st.OK != 0 {
		t.Fatalf("stats %+v: nothing can have been delivered", st)
	}
}

func mustTypes(t *testing.T, names ...string) events.Mask {
	t.Helper()
	m, err := events.ParseTypes(names)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
