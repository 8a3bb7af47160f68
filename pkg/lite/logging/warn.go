package logging

import (
	"log/slog"

	"github.com/go-logr/logr"
)

// Warn logs msg at slog's WARN level, for which logr has no call: a problem
// the operator should fix that stops nothing (a config warning). It is for
// one line per cause, so it is not rate limited: the limiter would count
// every warning of one call site as the same line. Two things differ from
// logr's Info: the logger's name (WithName) is not written, since slog has
// no names, and a logger not backed by slog writes the line at info.
func Warn(l logr.Logger, msg string, keysAndValues ...any) {
	h := logr.ToSlogHandler(l)
	if lh, ok := h.(*limitHandler); ok {
		h = lh.inner
	}
	slog.New(h).Warn(msg, keysAndValues...)
}
