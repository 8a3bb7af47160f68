package events

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/lite/wake"
)

// Headers of every webhook request. The signature is HMAC-SHA256 of the body with
// the receiver's secret, hex, after "sha256=" (absent without a secret).
const (
	HeaderSignature = "X-Gate-Signature"
	HeaderEvent     = "X-Gate-Event"
	HeaderEventID   = "X-Gate-Event-Id"
)

// Webhook is one receiver as the config names it.
type Webhook struct {
	URL    string
	Types  Mask
	Secret string
	// Timeout bounds each request; Attempts tries of it are made, Backoff apart
	// and doubling, before the event is counted failed.
	Timeout time.Duration
	Format  Format
}

// Sign is the signature header's value for body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Receiver names a webhook in metrics and logs: scheme://host[:port], without the
// userinfo, path or query that may hold a token (wake.Name's rule).
func Receiver(url string) string {
	return strings.TrimPrefix(wake.Name(string(wake.KindWebhook)+" "+url), string(wake.KindWebhook)+" ")
}

// tally counts one receiver's outcomes; it outlives reloads that keep the name.
// gone holds the drops of its stopped subscriptions.
type tally struct{ ok, failed, gone atomic.Uint64 }

func (t *tally) dropped(n uint64) { t.gone.Add(n) }

// receiver delivers one webhook's events in order, one at a time.
type receiver struct {
	w     Webhook
	name  string
	sub   *Sub
	tally *tally
	o     *WebhookOptions
	log   logr.Logger
}

// run delivers until the subscription is closed; ctx aborts a request or a wait.
func (r *receiver) run(ctx context.Context) {
	for e := range r.sub.C() {
		body, err := e.Body(r.w.Format)
		if err != nil || body == nil {
			continue
		}
		if r.deliver(ctx, &e, body) {
			r.tally.ok.Add(1)
		} else {
			r.tally.failed.Add(1)
		}
	}
}

// deliver makes up to Attempts tries; a 4xx other than 408 and 429 is not retried.
func (r *receiver) deliver(ctx context.Context, e *Event, body []byte) bool {
	wait := r.o.Backoff
	var last error
	for i := range r.o.Attempts {
		if i > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return false
			case <-t.C:
			}
			wait *= 2
		}
		code, err := r.post(ctx, e, body)
		if err == nil && code < 300 {
			return true
		}
		if last = err; err == nil {
			last = fmt.Errorf("status %d", code)
			if code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests {
				break
			}
		}
		if ctx.Err() != nil {
			return false
		}
	}
	r.log.V(1).Info("webhook delivery failed", "receiver", r.name, "event", e.Type.String(), "id", e.ID, "err", last.Error())
	return false
}

func (r *receiver) post(ctx context.Context, e *Event, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, r.w.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.w.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "gate-lite")
	req.Header.Set(HeaderEvent, e.Type.String())
	req.Header.Set(HeaderEventID, strconv.FormatUint(e.ID, 10))
	if r.w.Secret != "" {
		req.Header.Set(HeaderSignature, Sign(r.w.Secret, body))
	}
	resp, err := r.o.Client.Do(req)
	if err != nil {
		// A url.Error quotes the whole URL, whose path or query may hold a token.
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return 0, fmt.Errorf("webhook %s: %w", r.name, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // lets the connection be reused
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}
