package events

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
)

// Defaults of WebhookOptions.
const (
	DefaultWebhookQueue    = 1024
	DefaultWebhookAttempts = 3
	DefaultWebhookBackoff  = time.Second
	// DefaultWebhookTimeout bounds each request of a receiver whose config sets
	// no timeout: a receiver slower than this is failing.
	DefaultWebhookTimeout = 5 * time.Second
)

// WebhookOptions configure every receiver of a Webhooks.
type WebhookOptions struct {
	// Queue is each receiver's queue in events; past it events are dropped and
	// counted. 0 means DefaultWebhookQueue.
	Queue int
	// Attempts and Backoff: see Webhook. 0 means the Default ones.
	Attempts int
	Backoff  time.Duration
	// Client sends the requests; nil means one that follows no redirect (a
	// receiver must not send the signed body elsewhere).
	Client *http.Client
	// Log receives failed deliveries (at debug: a dead receiver is seen in the
	// metrics, not one line per event).
	Log logr.Logger
}

// Webhooks delivers the Bus's events to the configured receivers; Set replaces
// them on reload (a receiver whose settings did not change keeps its queue).
type Webhooks struct {
	bus *Bus
	o   WebhookOptions

	mu      sync.Mutex
	running map[Webhook]*running
	tallies map[string]*tally // by receiver name, kept across reloads
}

type running struct {
	r      *receiver
	cancel context.CancelFunc
	done   chan struct{}
}

// NewWebhooks returns a Webhooks with no receiver.
func NewWebhooks(bus *Bus, o WebhookOptions) *Webhooks {
	if o.Queue <= 0 {
		o.Queue = DefaultWebhookQueue
	}
	if o.Attempts <= 0 {
		o.Attempts = DefaultWebhookAttempts
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultWebhookBackoff
	}
	if o.Client == nil {
		o.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &Webhooks{bus: bus, o: o, running: map[Webhook]*running{}, tallies: map[string]*tally{}}
}

// Set makes hooks the receivers: new ones start, removed ones stop (what they
// have queued is dropped), unchanged ones go on.
func (w *Webhooks) Set(hooks []Webhook) {
	want := make(map[Webhook]bool, len(hooks))
	var stop []*running
	w.mu.Lock()
	for _, h := range hooks {
		want[h] = true
		if _, ok := w.running[h]; !ok {
			w.running[h] = w.start(h)
		}
	}
	for h, r := range w.running {
		if !want[h] {
			delete(w.running, h)
			stop = append(stop, r)
		}
	}
	w.mu.Unlock()
	for _, r := range stop {
		r.stop()
	}
}

// start subscribes and runs a receiver. Caller holds w.mu.
func (w *Webhooks) start(h Webhook) *running {
	name := Receiver(h.URL)
	t := w.tallies[name]
	if t == nil {
		t = &tally{}
		w.tallies[name] = t
	}
	sub, _ := w.bus.Subscribe(h.Types, w.o.Queue, 0)
	r := &receiver{w: h, name: name, sub: sub, tally: t, o: &w.o, log: w.o.Log}
	ctx, cancel := context.WithCancel(context.Background())
	run := &running{r: r, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		r.run(ctx)
	}()
	return run
}

// stop ends the receiver and waits for its goroutine.
func (r *running) stop() {
	r.r.sub.Close()
	r.cancel()
	<-r.done
	r.r.tally.dropped(r.r.sub.Dropped())
}

// Close stops every receiver and waits for them.
func (w *Webhooks) Close() { w.Set(nil) }

var descDeliveries = prometheus.NewDesc("gate_lite_webhook_deliveries_total",
	"Events offered to a webhook receiver, by result: ok (answered 2xx), failed (every attempt failed), dropped (its queue was full).",
	[]string{"receiver", "result"}, nil)

// Collector exports gate_lite_webhook_deliveries_total{receiver,result}.
func (w *Webhooks) Collector() prometheus.Collector { return (*webhookCollector)(w) }

type webhookCollector Webhooks

func (c *webhookCollector) Describe(ch chan<- *prometheus.Desc) { ch <- descDeliveries }

func (c *webhookCollector) Collect(ch chan<- prometheus.Metric) {
	w := (*Webhooks)(c)
	w.mu.Lock()
	drops := map[string]uint64{}
	for _, r := range w.running {
		drops[r.r.name] += r.r.sub.Dropped()
	}
	out := make(map[string][3]uint64, len(w.tallies))
	for name, t := range w.tallies {
		out[name] = [3]uint64{t.ok.Load(), t.failed.Load(), t.gone.Load() + drops[name]}
	}
	w.mu.Unlock()
	for name, v := range out {
		for i, res := range [...]string{"ok", "failed", "dropped"} {
			ch <- prometheus.MustNewConstMetric(descDeliveries, prometheus.CounterValue, float64(v[i]), name, res)
		}
	}
}

// Stats is one receiver's counts, for tests and the docs.
type Stats struct{ OK, Failed, Dropped uint64 }

// Stats returns the counts of the receiver named name (Receiver of its URL).
func (w *Webhooks) Stats(name string) Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.tallies[name]
	if t == nil {
		return Stats{}
	}
	s := Stats{OK: t.ok.Load(), Failed: t.failed.Load(), Dropped: t.gone.Load()}
	for _, r := range w.running {
		if r.r.name == name {
			s.Dropped += r.r.sub.Dropped()
		}
	}
	return s
}
