package events_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/events"
)

// A receiver that fails with 5xx is retried with backoff until it answers; one that
// answers 4xx is not retried (the event is counted failed).
func TestWebhookRetriesServerErrorsNotClientErrors(t *testing.T) {
	var calls atomic.Int32
	code := atomic.Int32{}
	code.Store(500)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 3 && code.Load() == 500 {
			w.WriteHeader(204)
			return
		}
		w.WriteHeader(int(code.Load()))
	}))
	defer srv.Close()
	b := events.NewBus(0)
	wh := events.NewWebhooks(b, events.WebhookOptions{Attempts: 3, Backoff: time.Millisecond})
	defer wh.Close()
	wh.Set([]events.Webhook{{URL: srv.URL, Types: events.AllTypes, Timeout: time.Second}})
	name := events.Receiver(srv.URL)
	b.Publish(events.Event{Type: events.Joined})
	mctest.WaitFor(t, "delivered on the third try", 5*time.Second, func() bool { return wh.Stats(name).OK == 1 })
	if calls.Load() != 3 {
		t.Fatalf("%d calls, want 3", calls.Load())
	}
	code.Store(400)
	b.Publish(events.Event{Type: events.Joined})
	mctest.WaitFor(t, "failed at once", 5*time.Second, func() bool { return wh.Stats(name).Failed == 1 })
	if calls.Load() != 4 {
		t.Fatalf("%d calls, want 4 (a 4xx is not retried)", calls.Load())
	}
}

// A reload that keeps a receiver keeps it running; one that drops it stops it.
func TestWebhooksSetKeepsAndStops(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { calls.Add(1) }))
	defer srv.Close()
	b := events.NewBus(0)
	wh := events.NewWebhooks(b, events.WebhookOptions{})
	defer wh.Close()
	h := events.Webhook{URL: srv.URL, Types: events.AllTypes, Timeout: time.Second}
	wh.Set([]events.Webhook{h})
	wh.Set([]events.Webhook{h})
	b.Publish(events.Event{Type: events.Joined})
	// Delivered means answered and counted, not only received: stopping the receiver
	// while its request is in flight would count that request failed.
	mctest.WaitFor(t, "one delivery", 5*time.Second, func() bool {
		return calls.Load() == 1 && wh.Stats(events.Receiver(srv.URL)).OK == 1
	})
	wh.Set(nil)
	b.Publish(events.Event{Type: events.Joined})
	if st := wh.Stats(events.Receiver(srv.URL)); st.OK != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// A failed delivery's log line names the receiver by scheme and host only: the
// URL's path and query (where a token may be) stay out of the logs.
func TestWebhookFailureLogHasNoToken(t *testing.T) {
	addr := mctest.RefusedAddr(t)
	logs := &mctest.Logs{}
	b := events.NewBus(0)
	wh := events.NewWebhooks(b, events.WebhookOptions{Attempts: 1, Log: logs.Logger(1)})
	defer wh.Close()
	wh.Set([]events.Webhook{{URL: "http://" + addr + "/hook/s3cret?token=s3cret", Types: events.AllTypes, Timeout: time.Second}})
	b.Publish(events.Event{Type: events.Joined})
	mctest.WaitFor(t, "the failure", 5*time.Second, func() bool { return wh.Stats("http://"+addr).Failed == 1 })
	mctest.WaitFor(t, "the log line", 5*time.Second, func() bool { return logs.Count("webhook delivery failed") == 1 })
	if leaked := logs.Find("s3cret"); len(leaked) != 0 {
		t.Fatalf("log lines with the token: %q", leaked)
	}
}
