package config

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors an Error wraps, for callers that react to a kind of problem.
var (
	// ErrUnknownKey marks a key this proxy does not know (often a typo).
	ErrUnknownKey = errors.New("unknown key")
	// ErrInvalid marks a value of the wrong type or out of range.
	ErrInvalid = errors.New("invalid value")
	// ErrMissing marks a required key that is absent.
	ErrMissing = errors.New("missing key")
	// ErrLiteDisabled marks a config whose lite.enabled is false or missing:
	// this binary only runs Lite mode.
	ErrLiteDisabled = errors.New("lite mode disabled")
	// ErrSyntax marks a file that is not valid YAML.
	ErrSyntax = errors.New("yaml syntax")
	// ErrLimit marks a config over one of the parser's limits: the file size
	// (MaxFileSize), the work its aliases and merge keys expand to, a favicon
	// file's size, or the number of errors reported.
	ErrLimit = errors.New("config limit exceeded")
)

// Warning is a problem that does not stop the config from loading: an ignored
// Gate key, a deprecated alias, a route that can never match.
type Warning struct {
	File string
	Line int    // 1-based; 0 when unknown
	Path string // key path such as config.lite.routes[2].realIP
	Msg  string
}

// String formats the warning as "file:line: path: msg".
func (w Warning) String() string { return format(w.File, w.Line, w.Path, w.Msg) }

// Error is one problem that makes a config unusable.
type Error struct {
	File string
	Line int    // 1-based; 0 when unknown
	Path string // key path such as config.lite.routes[2].strategy
	Msg  string
	Err  error // the sentinel this error is an instance of (ErrInvalid, ...)
}

// Error formats the error as "file:line: path: msg".
func (e *Error) Error() string { return format(e.File, e.Line, e.Path, e.Msg) }

// Unwrap returns the sentinel, so errors.Is(err, ErrUnknownKey) works.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList is the errors found in one config, in file order. Parse and Load
// return it as their error when the config is unusable. It holds at most 100
// errors; when more were found, a last entry wrapping ErrLimit says how many
// were left out.
type ErrorList []*Error

// Error joins the errors one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func format(file string, line int, path, msg string) string {
	var b strings.Builder
	if file != "" {
		b.WriteString(file)
		b.WriteByte(':')
	}
	if line > 0 {
		fmt.Fprintf(&b, "%d:", line)
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if path != "" {
		b.WriteString(path)
		b.WriteString(": ")
	}
	b.WriteString(msg)
	return b.String()
}
