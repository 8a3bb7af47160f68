package logging

import (
	"bytes"
	"log"

	"github.com/go-logr/logr"
)

// StdLogger returns a *log.Logger (for http.Server.ErrorLog and the like) whose lines
// go to l as errors with message msg and the line as "detail". The message, not the
// line, is what the rate limiter counts (the "err" attribute is left empty), so a
// flood of TLS handshake errors from many addresses costs Burst lines a Window, and
// the lines follow --log-format instead of going to stderr as plain text.
func StdLogger(l logr.Logger, msg string) *log.Logger {
	return log.New(stdWriter{l: l, msg: msg}, "", 0)
}

// maxDetail caps a bridged line: the standard library's lines may quote what a
// remote peer sent.
const maxDetail = 512

type stdWriter struct {
	l   logr.Logger
	msg string
}

func (w stdWriter) Write(p []byte) (int, error) {
	w.l.Error(nil, w.msg, "detail", clip(string(bytes.TrimRight(p, "\n")), maxDetail))
	return len(p), nil
}
