package logging

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/go-logr/logr"
)

// Format is how log lines are written.
type Format string

// The formats of --log-format.
const (
	FormatText Format = "text" // slog's key=value lines, for people
	FormatJSON Format = "json" // one JSON object a line, for log pipelines
)

// ParseFormat validates a --log-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON:
		return f, nil
	}
	return "", fmt.Errorf("log format: unknown %q (want text or json)", s)
}

// Defaults of Options.
const (
	DefaultWindow  = time.Minute
	DefaultBurst   = 3
	DefaultMaxKeys = 1024
)

// Options configure New. The zero value logs text at info with the default rate limit.
type Options struct {
	// Format is text (default) or json.
	Format Format
	// Level is the minimum level; changing it takes effect on the next line, which is
	// how --debug and config.debug (on reload) work. Nil means a fixed info level.
	// logr's V(n) is slog level -n, so slog.LevelDebug shows V(1) through V(4).
	Level *slog.LevelVar
	// Window and Burst rate-limit repeated identical errors: at most Burst of them
	// per Window; the first one let through after a quiet Window carries a
	// "suppressed" count. Zero means DefaultWindow / DefaultBurst; a negative
	// Window turns the limit off.
	Window time.Duration
	Burst  int
	// MaxKeys bounds how many distinct errors are tracked. Zero means DefaultMaxKeys.
	MaxKeys int
	// Now is the rate limiter's clock (tests inject one). Nil means time.Now.
	Now func() time.Time
}

// New returns a logr.Logger writing to w.
func New(w io.Writer, o Options) (logr.Logger, error) {
	h, err := NewHandler(w, o)
	if err != nil {
		return logr.Discard(), err
	}
	return logr.FromSlogHandler(h), nil
}

// NewHandler returns the slog.Handler behind New, for programs that log with slog.
func NewHandler(w io.Writer, o Options) (slog.Handler, error) {
	if o.Format == "" {
		o.Format = FormatText
	}
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return nil, err
	}
	var level slog.Leveler = slog.LevelInfo
	if o.Level != nil {
		level = o.Level
	}
	ho := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if o.Format == FormatJSON {
		h = slog.NewJSONHandler(w, ho)
	} else {
		h = slog.NewTextHandler(w, ho)
	}
	if o.Window < 0 {
		return h, nil
	}
	return &limitHandler{inner: h, lim: newLimiter(o)}, nil
}
