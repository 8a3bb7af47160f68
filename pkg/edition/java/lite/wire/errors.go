package wire

import "errors"

// Parsers return these sentinels, usually wrapped with detail; test them with
// errors.Is. ErrIncomplete is returned unwrapped because it is the common
// "read more" answer on the hot path and wrapping it would allocate.
var (
	// ErrIncomplete means b holds a valid prefix of a message: read more
	// bytes and call again.
	ErrIncomplete = errors.New("wire: incomplete message")
	// ErrMalformed means the bytes can never become a valid message (bad
	// VarInt, unexpected packet id, bad string, negative length, ...).
	ErrMalformed = errors.New("wire: malformed message")
	// ErrTooLarge means a declared length is above the cap the caller (or
	// this package) set for that message.
	ErrTooLarge = errors.New("wire: message too large")
)
