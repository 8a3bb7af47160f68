package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/lite/wake"
)

// Defaults of Options and the spec.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 2 * time.Second
	// MaxReply is how much of a reply's body is read.
	MaxReply = 64 << 10
)

// Header names of a delivery.
const (
	HeaderSignature = "X-Gate-Signature"
	SignaturePrefix = "sha256="
)

// Options tune a Target beyond its spec; the zero value is ready.
type Options struct {
	// Client sends the requests. Default: a client of its own (Close drops
	// its idle connections) that never follows redirects.
	Client *http.Client
	// Rand draws backoff jitter and delivery ids; it is used under the
	// target's lock. Default: seeded from the runtime's random source.
	Rand *rand.Rand
	// MinBackoff is the wait after the first failed attempt; it doubles per
	// attempt up to MaxBackoff, each wait drawn in [d/2, d). Defaults
	// DefaultMinBackoff, DefaultMaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// Now stamps deliveries. Default time.Now.
	Now func() time.Time
}

// Target calls one webhook URL. It is safe for concurrent use.
type Target struct {
	key     string
	name    string // wake.Name(key): errors must not carry the URL's token
	url     string
	secret  []byte
	timeout time.Duration
	client  *http.Client
	ownTr   *http.Transport // nil when the client is the caller's
	minB    time.Duration
	maxB    time.Duration
	now     func() time.Time

	mu  sync.Mutex
	rnd *rand.Rand
}

var _ wake.Target = (*Target)(nil)

// Check reports what makes s no target of this engine, without a call: the
// kind, and wake's URL rule.
func Check(s wake.Spec) error {
	if s.Kind != wake.KindWebhook {
		return fmt.Errorf("webhook wake target: spec of kind %q", s.Kind)
	}
	return s.Validate()
}

// New returns the target of s (Kind webhook; URL http or https; Secret
// optional; Timeout bounds each call with all its attempts, default
// DefaultTimeout).
func New(s wake.Spec, o Options) (*Target, error) {
	if err := Check(s); err != nil {
		return nil, err
	}
	t := &Target{key: s.Key(), name: wake.Name(s.Key()), url: s.URL, timeout: s.Timeout, client: o.Client, minB: o.MinBackoff, maxB: o.MaxBackoff, now: o.Now, rnd: o.Rand}
	if s.Secret != "" {
		t.secret = []byte(s.Secret)
	}
	if t.timeout == 0 {
		t.timeout = DefaultTimeout
	}
	if t.minB <= 0 {
		t.minB = DefaultMinBackoff
	}
	if t.maxB < t.minB {
		t.maxB = max(DefaultMaxBackoff, t.minB)
	}
	if t.now == nil {
		t.now = time.Now
	}
	if t.rnd == nil {
		t.rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if t.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 4
		t.ownTr = tr
		t.client = &http.Client{
			Transport: tr,
			// A redirected POST becomes a GET: an answer the contract lacks.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return t, nil
}

// Close drops the idle connections of the target's own client.
func (t *Target) Close() {
	if t.ownTr != nil {
		t.ownTr.CloseIdleConnections()
	}
}

// Key implements wake.Target.
func (t *Target) Key() string { return t.key }

// Timeout is the bound of one call with all its attempts.
func (t *Target) Timeout() time.Duration { return t.timeout }

// Wake posts action "wake"; a reply may name the backend.
func (t *Target) Wake(ctx context.Context, req wake.Request) (wake.Result, error) {
	reply, err := t.call(ctx, "wake", req)
	if err != nil {
		return wake.Result{}, fmt.Errorf("%s: wake: %w", t.name, err)
	}
	backend, err := parseReply(reply)
	if err != nil {
		return wake.Result{}, fmt.Errorf("%s: wake: accepted, but %w", t.name, err)
	}
	return wake.Result{Backend: backend}, nil
}

// Sleep posts action "sleep"; the reply's body is not looked at.
func (t *Target) Sleep(ctx context.Context, req wake.Request) error {
	if _, err := t.call(ctx, "sleep", req); err != nil {
		return fmt.Errorf("%s: sleep: %w", t.name, err)
	}
	return nil
}

// delivery is the request body.
type delivery struct {
	Action        string `json:"action"`
	ServerAddress string `json:"serverAddress"`
	Backend       string `json:"backend"`
	Timestamp     int64  `json:"timestamp"`
	ID            string `json:"id"`
}

// Sign is the signature header's value for body under secret; receivers
// compare it with hmac.Equal.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return SignaturePrefix + hex.EncodeToString(m.Sum(nil))
}

// call delivers one action, retrying within the target's timeout, and
// returns the 2xx reply's body (at most MaxReply+1 bytes, so that an
// oversized one shows).
func (t *Target) call(ctx context.Context, action string, req wake.Request) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	t.mu.Lock()
	id := fmt.Sprintf("%016x%016x", t.rnd.Uint64(), t.rnd.Uint64())
	t.mu.Unlock()
	body, err := json.Marshal(delivery{Action: action, ServerAddress: req.ServerAddress, Backend: req.Backend, Timestamp: t.now().Unix(), ID: id})
	if err != nil {
		return nil, err
	}
	var sig string
	if t.secret != nil {
		sig = Sign(t.secret, body)
	}
	for attempt := 0; ; attempt++ {
		reply, retryAfter, err := t.attempt(ctx, body, sig)
		if err == nil {
			return reply, nil
		}
		var final *finalError
		if errors.As(err, &final) {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("no reply within the %s timeout (attempt %d): %w", t.timeout, attempt+1, err)
			}
			return nil, err
		}
		wait := max(t.backoff(attempt), retryAfter)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			return nil, fmt.Errorf("gave up after %d attempts within %s: %w", attempt+1, t.timeout, err)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("gave up after %d attempts: %w (%w)", attempt+1, err, ctx.Err())
		case <-timer.C:
		}
	}
}

// finalError is an answer that a retry would not change.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// attempt sends body once. A retryable failure comes with the wait the
// server asked for (Retry-After), if any.
func (t *Target) attempt(ctx context.Context, body []byte, sig string) ([]byte, time.Duration, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &finalError{withoutURL(err)}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("User-Agent", "gate-wake")
	if sig != "" {
		hreq.Header.Set(HeaderSignature, sig)
	}
	resp, err := t.client.Do(hreq)
	if err != nil {
		err = withoutURL(err)
		if ctx.Err() != nil {
			return nil, 0, &finalError{fmt.Errorf("POST: %w", ctx.Err())}
		}
		return nil, 0, fmt.Errorf("POST: %w", err)
	}
	defer resp.Body.Close()
	reply, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxReply+1))
	// Drain a little more so that the connection can be reused.
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	// A failed reply is told by its code alone: its body and reason phrase
	// are the remote's words, which must not reach logs or the admin API
	// (a URL the proxy may reach is not one whose answers it may show).
	code := resp.StatusCode
	status := strconv.Itoa(code) + " " + http.StatusText(code)
	switch {
	case code >= 200 && code < 300:
		if rerr != nil {
			return nil, 0, fmt.Errorf("read reply: %w", rerr)
		}
		return reply, 0, nil
	case code >= 500 || code == http.StatusTooManyRequests:
		return nil, retryAfter(resp.Header.Get("Retry-After")), fmt.Errorf("reply %s", status)
	default:
		return nil, 0, &finalError{fmt.Errorf("reply %s (not retried)", status)}
	}
}

// withoutURL drops the URL a *url.Error quotes (token, userinfo and all);
// the target's name already says which webhook failed.
func withoutURL(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	return err
}

// backoff is the wait after failed attempt n (0-based): min·2ⁿ capped at
// max, drawn in [d/2, d) so that replicas that failed together spread out.
func (t *Target) backoff(n int) time.Duration {
	d := t.minB
	for i := 0; i < n && d < t.maxB; i++ {
		d *= 2
	}
	d = min(d, t.maxB)
	t.mu.Lock()
	j := t.rnd.Int64N(int64(d/2) + 1)
	t.mu.Unlock()
	return d/2 + time.Duration(j)
}

// retryAfter reads a Retry-After of whole seconds; a date or garbage is 0.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// parseReply reads the backend a wake reply names. A body that is not a JSON
// object (empty, "ok") names none; a JSON object must be whole, within
// MaxReply, and its backend, if any, host:port.
func parseReply(b []byte) (string, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return "", nil
	}
	if len(b) > MaxReply {
		return "", fmt.Errorf("the reply is larger than %d bytes", MaxReply)
	}
	var r struct {
		Backend *string `json:"backend"`
	}
	if err := json.Unmarshal(trimmed, &r); err != nil {
		return "", errors.New("the reply is not valid JSON")
	}
	if r.Backend == nil || *r.Backend == "" {
		return "", nil
	}
	if err := wake.CheckBackend(*r.Backend); err != nil {
		return "", errors.New("the reply's backend is not host:port with a port 1-65535")
	}
	return *r.Backend, nil
}
