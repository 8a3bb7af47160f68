package wire

import (
	"fmt"
	"unicode/utf8"
)

// AppendString appends s as a protocol String: its byte length as a VarInt,
// then the bytes. The caller keeps s well under 2 GiB (every protocol string
// is capped far lower).
func AppendString(dst []byte, s string) []byte {
	dst = AppendVarInt(dst, int32(len(s)))
	return append(dst, s...)
}

// ParseString decodes the String at the start of b and reports how many bytes
// it used. A declared length above maxBytes is ErrTooLarge (before waiting for
// the bytes, so a hostile length costs nothing); invalid UTF-8 is
// ErrMalformed, because real clients only ever send valid UTF-8.
func ParseString(b []byte, maxBytes int) (s string, n int, err error) {
	raw, n, err := parseBytes(b, maxBytes)
	if err != nil {
		return "", 0, err
	}
	if !utf8.Valid(raw) {
		return "", 0, fmt.Errorf("%w: string is not valid UTF-8", ErrMalformed)
	}
	return string(raw), n, nil
}

// parseBytes is ParseString without the UTF-8 check and without copying: the
// result aliases b, with its capacity clipped so appending to it cannot
// overwrite what follows in b.
func parseBytes(b []byte, maxBytes int) (raw []byte, n int, err error) {
	l, ln, err := ParseVarInt(b)
	if err != nil {
		return nil, 0, err
	}
	if l < 0 {
		return nil, 0, fmt.Errorf("%w: negative string length %d", ErrMalformed, l)
	}
	if int64(l) > int64(maxBytes) {
		return nil, 0, fmt.Errorf("%w: string length %d above cap %d", ErrTooLarge, l, maxBytes)
	}
	end := ln + int(l)
	if end > len(b) {
		return nil, 0, ErrIncomplete
	}
	return b[ln:end:end], end, nil
}
