package wire

import "fmt"

// maxVarIntLen is the longest VarInt encoding of a 32-bit value.
const maxVarIntLen = 5

// AppendVarInt appends v in the protocol's VarInt encoding: seven bits per
// byte, least significant group first, 0x80 on every byte but the last.
// Negative values take the full five bytes, as in the protocol.
func AppendVarInt(dst []byte, v int32) []byte {
	u := uint32(v)
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// VarIntLen reports how many bytes AppendVarInt writes for v.
func VarIntLen(v int32) int {
	u := uint32(v)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// ParseVarInt decodes the VarInt at the start of b and reports how many bytes
// it used. A sixth byte (the fifth still has its continuation bit) is
// malformed. Bits beyond 32 in the fifth byte are dropped, as the vanilla
// server does, so every encoding vanilla accepts is accepted here.
func ParseVarInt(b []byte) (v int32, n int, err error) {
	var u uint32
	for i := 0; i < maxVarIntLen; i++ {
		if i == len(b) {
			return 0, 0, ErrIncomplete
		}
		c := b[i]
		u |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return int32(u), i + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: varint longer than %d bytes", ErrMalformed, maxVarIntLen)
}
