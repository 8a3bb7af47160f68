package logging

import (
	"context"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// limitKey says when two records are "the same error": the same call site,
// message, logger name, bound attributes and error text. Other
// attributes (a client address, a duration) do not make them different, so a
// backend refusing every player is one error, not one per player.
type limitKey struct {
	site   string // function and line of the log call
	msg    string
	scope  string // attributes bound with WithAttrs/WithGroup
	logger string
	err    string
}

// window counts one key's records in the current window.
type window struct {
	start      time.Time
	n          int // records seen in this window
	suppressed int // records dropped in this window
}

// limiter is shared by a handler and every handler derived from it.
type limiter struct {
	now     func() time.Time
	span    time.Duration
	burst   int
	maxKeys int

	mu   sync.Mutex
	keys map[limitKey]*window
}

func newLimiter(o Options) *limiter {
	l := &limiter{now: o.Now, span: o.Window, burst: o.Burst, maxKeys: o.MaxKeys, keys: map[limitKey]*window{}}
	if l.now == nil {
		l.now = time.Now
	}
	if l.span == 0 {
		l.span = DefaultWindow
	}
	if l.burst <= 0 {
		l.burst = DefaultBurst
	}
	if l.maxKeys <= 0 {
		l.maxKeys = DefaultMaxKeys
	}
	return l
}

// admit decides whether a record with key k is written. carried is how many
// identical records the previous window dropped (reported on this one).
func (l *limiter) admit(k limitKey) (ok bool, carried int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.keys[k]
	if w == nil {
		if len(l.keys) >= l.maxKeys && !l.sweepLocked(now) {
			// Full of live keys: never drop an error we cannot account for.
			return true, 0
		}
		w = &window{start: now}
		l.keys[k] = w
	}
	if now.Sub(w.start) >= l.span {
		carried = w.suppressed
		*w = window{start: now}
	}
	w.n++
	if w.n > l.burst {
		w.suppressed++
		return false, 0
	}
	return true, carried
}

// sweepLocked forgets keys whose window has ended and reports whether room was made.
func (l *limiter) sweepLocked(now time.Time) bool {
	for k, w := range l.keys {
		if now.Sub(w.start) >= l.span {
			delete(l.keys, k)
		}
	}
	return len(l.keys) < l.maxKeys
}

// limitHandler applies the limiter to records at warn level and above; everything
// else passes straight through.
type limitHandler struct {
	inner slog.Handler
	lim   *limiter
	scope string
}

func (h *limitHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h *limitHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.inner.Handle(ctx, r)
	}
	k := limitKey{site: callSite(r.PC), msg: r.Message, scope: h.scope}
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "err":
			k.err = a.Value.String()
		case "logger":
			k.logger = a.Value.String()
		}
		return true
	})
	ok, carried := h.lim.admit(k)
	if !ok {
		return nil
	}
	if carried > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed", carried))
	}
	return h.inner.Handle(ctx, r)
}

// callSite names the logical frame of pc. Comparing PCs alone would tell the
// copies of an inlined function apart, one per place it was inlined into.
func callSite(pc uintptr) string {
	if pc == 0 {
		return ""
	}
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	return f.Function + ":" + strconv.Itoa(f.Line)
}

func (h *limitHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.scope)
	for _, a := range attrs {
		b.WriteString(a.String())
		b.WriteByte(' ')
	}
	return &limitHandler{inner: h.inner.WithAttrs(attrs), lim: h.lim, scope: b.String()}
}

func (h *limitHandler) WithGroup(name string) slog.Handler {
	return &limitHandler{inner: h.inner.WithGroup(name), lim: h.lim, scope: h.scope + name + "."}
}
