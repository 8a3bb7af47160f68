package webhook

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/wake"
)

// hook is a real HTTP server on loopback whose reply the test scripts per
// attempt; it keeps every request it got.
type hook struct {
	srv   *httptest.Server
	reply func(n int, w http.ResponseWriter, r *http.Request) // n counts from 1
	mu    sync.Mutex
	got   []received
	n     atomic.Int32
}

type received struct {
	header http.Header
	body   []byte
}

func newHook(t *testing.T, reply func(n int, w http.ResponseWriter, r *http.Request)) *hook {
	h := &hook{reply: reply}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, received{r.Header.Clone(), b})
		h.mu.Unlock()
		h.reply(int(h.n.Add(1)), w, r)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) requests() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.got...)
}

func newTarget(t *testing.T, url, secret string, timeout time.Duration) *Target {
	t.Helper()
	tg, err := New(wake.Spec{Kind: wake.KindWebhook, URL: url, Secret: secret, Timeout: timeout},
		Options{Rand: rand.New(rand.NewPCG(1, 2)), MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tg.Close)
	return tg
}

func TestWakeIsSignedJSONAndReplyNamesTheBackend(t *testing.T) {
	const secret = "s3cret"
	h := newHook(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"backend":"10.9.0.30:25565","extra":true}`)
	})
	tg := newTarget(t, h.srv.URL+"/wake", secret, 0)
	before := time.Now().Unix()
	res, err := tg.Wake(context.Background(), wake.Request{ServerAddress: "survival.example.com", Backend: "10.9.0.31:25565"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "10.9.0.30:25565" {
		t.Errorf("backend %q", res.Backend)
	}
	got := h.requests()
	if len(got) != 1 {
		t.Fatalf("%d requests, want 1", len(got))
	}
	r := got[0]
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	// The receiver's side: recompute the HMAC of the exact body.
	if want := Sign([]byte(secret), r.body); !hmac.Equal([]byte(r.header.Get(HeaderSignature)), []byte(want)) {
		t.Errorf("signature %q does not verify (want %q)", r.header.Get(HeaderSignature), want)
	}
	if Sign([]byte("other"), r.body) == r.header.Get(HeaderSignature) {
		t.Error("signature verifies under another secret")
	}
	var d map[string]any
	if err := json.Unmarshal(r.body, &d); err != nil {
		t.Fatal(err)
	}
	if d["action"] != "wake" || d["serverAddress"] != "survival.example.com" || d["backend"] != "10.9.0.31:25565" ||
		len(d["id"].(string)) != 32 || d["timestamp"].(float64) < float64(before) {
		t.Errorf("body %s", r.body)
	}
	if tg.Timeout() != DefaultTimeout {
		t.Errorf("default timeout %s", tg.Timeout())
	}
}

func TestSleepWithoutSecretIsUnsigned(t *testing.T) {
	h := newHook(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	tg := newTarget(t, h.srv.URL, "", time.Second)
	if err := tg.Sleep(context.Background(), wake.Request{ServerAddress: "a.example.com"}); err != nil {
		t.Fatal(err)
	}
	r := h.requests()[0]
	if _, ok := r.header[HeaderSignature]; ok {
		t.Error("signature header without a secret")
	}
	if !strings.Contains(string(r.body), `"action":"sleep"`) || !strings.Contains(string(r.body), `"backend":""`) {
		t.Errorf("body %s", r.body)
	}
}

func TestServerErrorsAndTooManyRequestsAreRetriedWithTheSameDelivery(t *testing.T) {
	h := newHook(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		switch n {
		case 1:
			http.Error(w, "starting up", http.StatusServiceUnavailable)
		case 2:
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case 3:
			http.Error(w, "oops", http.StatusInternalServerError)
		default:
			io.WriteString(w, "ok")
		}
	})
	tg := newTarget(t, h.srv.URL, "k", 5*time.Second)
	res, err := tg.Wake(context.Background(), wake.Request{ServerAddress: "x"})
	if err != nil || res.Backend != "" {
		t.Fatalf("wake: %+v %v", res, err)
	}
	got := h.requests()
	if len(got) != 4 {
		t.Fatalf("%d attempts, want 4", len(got))
	}
	for i, r := range got[1:] {
		if string(r.body) != string(got[0].body) || r.header.Get(HeaderSignature) != got[0].header.Get(HeaderSignature) {
			t.Errorf("attempt %d differs from the first: %s", i+2, r.body)
		}
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, code := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusFound} {
		h := newHook(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(code)
			io.WriteString(w, "bad signature")
		})
		tg := newTarget(t, h.srv.URL, "k", 5*time.Second)
		_, err := tg.Wake(context.Background(), wake.Request{})
		if err == nil || !strings.Contains(err.Error(), wake.Name(tg.Key())) || !strings.Contains(err.Error(), http.StatusText(code)) {
			t.Errorf("%d: error %v", code, err)
		}
		if n := len(h.requests()); n != 1 {
			t.Errorf("%d: %d attempts, want 1", code, n)
		}
	}
}

func TestDroppedConnectionIsRetried(t *testing.T) {
	h := newHook(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close() // no status line: a network error for the client
			}
			return
		}
		io.WriteString(w, `{"backend":"[::1]:25566"}`)
	})
	tg := newTarget(t, h.srv.URL, "", 5*time.Second)
	res, err := tg.Wake(context.Background(), wake.Request{})
	if err != nil || res.Backend != "[::1]:25566" {
		t.Fatalf("wake: %+v %v", res, err)
	}
	if n := len(h.requests()); n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
}

func TestHangingServerIsBoundedByTheTimeout(t *testing.T) {
	release := make(chan struct{})
	h := newHook(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release) // before the server's Close, which waits for handlers
	const timeout = 400 * time.Millisecond
	tg := newTarget(t, h.srv.URL, "", timeout)
	t0 := time.Now()
	_, err := tg.Wake(context.Background(), wake.Request{})
	took := time.Since(t0)
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("wake against a hanging server: %v", err)
	}
	// The bound is what is tested (a hanging receiver cannot hold a login
	// past it); the slack is for a loaded machine, not for the code.
	if took < timeout || took > timeout+time.Second {
		t.Errorf("wake returned after %s, want within [%s, %s]", took, timeout, timeout+time.Second)
	}
	t.Logf("hanging server: wake failed after %s (timeout %s): %v", took.Round(time.Millisecond), timeout, err)
}

func TestRetriesStopBeforeTheTimeout(t *testing.T) {
	h := newHook(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	const timeout = 300 * time.Millisecond
	tg := newTarget(t, h.srv.URL, "", timeout)
	t0 := time.Now()
	_, err := tg.Wake(context.Background(), wake.Request{})
	took := time.Since(t0)
	// The error names the last answer (502), or the timeout when the last
	// attempt was still on the wire as the time ran out (a loaded machine).
	if err == nil || !(strings.Contains(err.Error(), "502") || strings.Contains(err.Error(), "timeout")) || took > timeout+time.Second {
		t.Fatalf("after %s: %v", took, err)
	}
	if n := len(h.requests()); n < 3 {
		t.Errorf("%d attempts in %s, want several", n, timeout)
	}
	t.Logf("always 502: %d attempts, gave up after %s: %v", len(h.requests()), took.Round(time.Millisecond), err)
}

func TestMalformedReplies(t *testing.T) {
	for _, tt := range []struct {
		name, body, backend, err string
	}{
		{name: "empty body", body: ""},
		{name: "plain text", body: "ok\n"},
		{name: "object without backend", body: `{"status":"starting"}`},
		{name: "blank backend", body: `{"backend":""}`},
		{name: "backend without port", body: `{"backend":"mc.example.com"}`, err: "backend"},
		{name: "port out of range", body: `{"backend":"mc.example.com:70000"}`, err: "1-65535"},
		{name: "backend not a string", body: `{"backend":25565}`, err: "not valid JSON"},
		{name: "truncated JSON", body: `{"backend":"10.9.0.30:25565"`, err: "not valid JSON"},
		{name: "oversized JSON", body: `{"pad":"` + strings.Repeat("x", MaxReply) + `"}`, err: "larger than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHook(t, func(_ int, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, tt.body) })
			tg := newTarget(t, h.srv.URL, "", time.Second)
			res, err := tg.Wake(context.Background(), wake.Request{})
			if tt.err == "" {
				if err != nil || res.Backend != tt.backend {
					t.Fatalf("got %+v %v", res, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "accepted") {
				t.Fatalf("got %+v %v, want an error with %q", res, err, tt.err)
			}
			if n := len(h.requests()); n != 1 {
				t.Errorf("a malformed 2xx reply was retried: %d attempts", n)
			}
		})
	}
}

func TestBackoffDoublesWithJitterAndIsSeeded(t *testing.T) {
	mk := func() *Target {
		tg, err := New(wake.Spec{Kind: wake.KindWebhook, URL: "http://127.0.0.1:1/"},
			Options{Rand: rand.New(rand.NewPCG(7, 7)), MinBackoff: 100 * time.Millisecond, MaxBackoff: 800 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	a, b := mk(), mk()
	for n, top := range []time.Duration{100, 200, 400, 800, 800, 800} {
		top *= time.Millisecond
		da, db := a.backoff(n), b.backoff(n)
		if da != db {
			t.Errorf("attempt %d: same seed, different waits %s %s", n, da, db)
		}
		if da < top/2 || da > top {
			t.Errorf("attempt %d: wait %s outside [%s, %s]", n, da, top/2, top)
		}
	}
}

func TestSpecsThatCannotBeCalledAreRejected(t *testing.T) {
	for _, s := range []wake.Spec{
		{Kind: wake.KindWebhook, URL: ""},
		{Kind: wake.KindWebhook, URL: "ftp://x/"},
		{Kind: wake.KindWebhook, URL: "http:///path"},
		{Kind: wake.KindWebhook, URL: "http://x/", Timeout: -1},
		{Kind: wake.KindDocker, URL: "http://x/"},
	} {
		if _, err := New(s, Options{}); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

func TestConcurrentCallsAreSafe(t *testing.T) {
	h := newHook(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n%3 == 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"backend":"10.9.0.32:25565"}`)
	})
	// The timeout is far above what 50 calls with retries need: this test is
	// about concurrency, and a loaded machine must not turn it into one about
	// time.
	tg := newTarget(t, h.srv.URL, "k", 60*time.Second)
	var wg sync.WaitGroup
	var failed atomic.Int32
	var firstErr atomic.Value
	for range 50 {
		wg.Go(func() {
			if res, err := tg.Wake(context.Background(), wake.Request{}); err != nil || res.Backend != "10.9.0.32:25565" {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, fmt.Sprintf("%v (backend %q)", err, res.Backend))
			}
		})
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Errorf("%d of 50 concurrent wakes failed, first: %v", failed.Load(), firstErr.Load())
	}
	ids := map[string]bool{}
	for _, r := range h.requests() {
		var d struct{ ID string }
		_ = json.Unmarshal(r.body, &d)
		ids[d.ID] = true
	}
	if len(ids) != 50 {
		t.Errorf("%d distinct delivery ids for 50 calls", len(ids))
	}
}

// TestErrorRepliesAreToldByTheirCodeAlone pins issue 30's item 8: the first
// 200 bytes of an error reply, and the URL with its token, were quoted into
// the error, hence into State.Error and the logs.
func TestErrorRepliesAreToldByTheirCodeAlone(t *testing.T) {
	h := newHook(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "internal note: token=s3cret")
	})
	tg := newTarget(t, h.srv.URL+"/wake?token=s3cret", "", time.Second)
	_, err := tg.Wake(context.Background(), wake.Request{})
	if err == nil || !strings.Contains(err.Error(), "403 Forbidden") || strings.Contains(err.Error(), "s3cret") ||
		strings.Contains(err.Error(), "/wake") {
		t.Fatalf("error %v, want the status code without the body or the URL's path and query", err)
	}
}
