package kubernetes

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/tools/cache"
)

// resource is one of the two watched kinds; the health tracker needs every
// kind that failed during an outage to be served again before it calls the
// source fresh.
type resource int

const (
	resServices resource = iota
	resEndpointSlices
	resCount
)

func (r resource) String() string {
	if r == resServices {
		return "services"
	}
	return "endpointslices"
}

// resourceOf classifies an API request by its path: the informers only ever
// ask for these two collections.
func resourceOf(req *http.Request) (resource, bool) {
	p := req.URL.Path
	switch {
	case strings.HasSuffix(p, "/endpointslices"):
		return resEndpointSlices, true
	case strings.HasSuffix(p, "/services"):
		return resServices, true
	}
	return 0, false
}

// health turns the informers' failures and successes into outages: one
// Stale per outage however many retries fail, and one "fresh" signal once
// every kind that failed has been listed or watched again.
type health struct {
	log     logr.Logger
	now     func() time.Time
	onStale func(error)
	onFresh func()
	fails   *atomic.Int64 // every failure, outage or not: tests see retries through it

	mu      sync.Mutex
	since   time.Time // zero while fresh
	failing [resCount]bool
}

// fail records a failed list or watch of res.
func (h *health) fail(res resource, err error) {
	h.fails.Add(1)
	h.mu.Lock()
	h.failing[res] = true
	first := h.since.IsZero()
	if first {
		h.since = h.now()
	}
	since := h.since
	h.mu.Unlock()
	if first {
		h.log.Info("kubernetes source stale", "since", since, "resource", res.String(), "err", err)
		h.onStale(err)
	}
}

// ok records that res was listed or watched successfully.
func (h *health) ok(res resource) {
	h.mu.Lock()
	h.failing[res] = false
	var outage time.Duration
	back := !h.since.IsZero() && !h.failing[resServices] && !h.failing[resEndpointSlices]
	if back {
		outage = h.now().Sub(h.since)
		h.since = time.Time{}
	}
	h.mu.Unlock()
	if back {
		h.log.Info("kubernetes source fresh again", "outage", outage)
		h.onFresh()
	}
}

// watchErrorHandler reports what the informers' reflectors give up on. A watch
// that expired or ended cleanly is routine (the reflector resumes or relists
// at once) and says nothing about the API server being gone. Each failure is
// a debug line; the outage as a whole is one info line in fail.
func (h *health) watchErrorHandler(res resource) cache.WatchErrorHandlerWithContext {
	return func(ctx context.Context, _ *cache.Reflector, err error) {
		if ctx.Err() != nil {
			return
		}
		h.log.V(1).Info("kubernetes watch ended", "resource", res.String(), "err", err)
		if errors.Is(err, io.EOF) || isExpired(err) {
			return
		}
		h.fail(res, err)
	}
}

// Backoff bounds how fast the source retries an API server it cannot reach.
type Backoff struct {
	// Initial is the first wait. Default 250ms.
	Initial time.Duration
	// Max caps the doubling waits. Default 2s: a returning API server is
	// seen within about that, and a retry per resource every 2s costs it
	// nothing.
	Max time.Duration
}

func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = 250 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 2 * time.Second
	}
	if b.Max < b.Initial {
		b.Max = b.Initial
	}
	return b
}

// transport sits between the informers and the API server. It sees every
// list and watch as it happens, which the reflectors' error handler does not:
// a reflector retries a refused watch on its own, silently, with a backoff of
// up to 30s that nothing outside client-go can set. So the transport retries
// a list or watch that could not reach the server itself, on the source's
// own backoff, and the reflector only sees the request succeed late. GET is
// the only method retried: it carries no body and changes nothing.
type transport struct {
	next    http.RoundTripper
	health  *health
	backoff Backoff
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, tracked := resourceOf(req)
	wait := t.backoff.Initial
	for {
		resp, err := t.next.RoundTrip(req)
		if req.Context().Err() != nil {
			return resp, err
		}
		if !tracked {
			return resp, err
		}
		if err == nil {
			if resp.StatusCode >= 200 && resp.StatusCode < 300 {
				t.health.ok(res)
			}
			return resp, nil
		}
		if req.Method != http.MethodGet || !unreachable(err) {
			return resp, err
		}
		t.health.fail(res, err)
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, err
		case <-timer.C:
		}
		wait = min(2*wait, t.backoff.Max)
	}
}

// WrappedRoundTripper lets client-go's helpers (CloseIdleConnectionsFor)
// reach the real transport.
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }

// unreachable reports whether err means the request never got an answer
// from the server because of the network (refused, reset, timed out), as
// opposed to, say, a certificate the client rejects.
func unreachable(err error) bool {
	if utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	if strings.Contains(err.Error(), "http2: client connection lost") {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}
