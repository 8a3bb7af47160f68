package wire

import (
	"errors"
	"fmt"
)

// maxFrameLenPrefix is how many bytes of length prefix the vanilla frame
// decoder reads before it gives up; no legitimate pre-login frame needs more.
const maxFrameLenPrefix = 3

// MaxFrameLen is the largest length a 3-byte prefix can declare. ParseFrame
// never accepts more, whatever max it is given.
const MaxFrameLen = 1<<(7*maxFrameLenPrefix) - 1

// ParseFrame decodes the frame at the start of b: a VarInt length, then that
// many bytes holding a VarInt packet id and the payload. n is the size of the
// whole frame including its length prefix. payload aliases b (capacity
// clipped, so appending to it never overwrites b[n:]).
//
// It answers ErrIncomplete until the whole frame is in b, and ErrTooLarge as
// soon as the length prefix is complete and declares more than max bytes, so
// a caller never waits for a frame it would refuse anyway. A length prefix
// longer than three bytes, an empty frame and a negative or truncated packet
// id are ErrMalformed.
func ParseFrame(b []byte, max int) (id int32, payload []byte, n int, err error) {
	l, ln, err := parseFrameLen(b)
	if err != nil {
		return 0, nil, 0, err
	}
	if l == 0 {
		return 0, nil, 0, fmt.Errorf("%w: empty frame has no packet id", ErrMalformed)
	}
	if l > max {
		return 0, nil, 0, fmt.Errorf("%w: frame length %d above cap %d", ErrTooLarge, l, max)
	}
	end := ln + l
	if end > len(b) {
		return 0, nil, 0, ErrIncomplete
	}
	body := b[ln:end:end]
	id, idn, err := ParseVarInt(body)
	if err != nil {
		return 0, nil, 0, inFrame(err, "packet id")
	}
	if id < 0 {
		return 0, nil, 0, fmt.Errorf("%w: negative packet id %d", ErrMalformed, id)
	}
	return id, body[idn:], end, nil
}

// AppendFrame appends a complete frame: the length prefix, id and payload.
func AppendFrame(dst []byte, id int32, payload []byte) []byte {
	dst = AppendVarInt(dst, int32(VarIntLen(id)+len(payload)))
	dst = AppendVarInt(dst, id)
	return append(dst, payload...)
}

// parseFrameLen decodes a frame length prefix of at most three bytes. A
// 3-byte VarInt cannot be negative, so no sign check is needed.
func parseFrameLen(b []byte) (l, n int, err error) {
	for i := 0; i < maxFrameLenPrefix; i++ {
		if i == len(b) {
			return 0, 0, ErrIncomplete
		}
		c := b[i]
		l |= int(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return l, i + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: frame length prefix longer than %d bytes", ErrMalformed, maxFrameLenPrefix)
}

// inFrame turns an error from a field parser that ran on a complete frame
// into the right answer: running out of bytes there can never be fixed by
// reading more, so ErrIncomplete becomes ErrMalformed.
func inFrame(err error, field string) error {
	if errors.Is(err, ErrIncomplete) {
		return fmt.Errorf("%w: %s runs past the end of the frame", ErrMalformed, field)
	}
	return fmt.Errorf("%s: %w", field, err)
}
