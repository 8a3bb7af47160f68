package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Packet ids of the status and login exchanges a Lite proxy takes part in.
const (
	IDStatusRequest   int32 = 0x00 // also the Status Response
	IDPing            int32 = 0x01 // also the Pong
	IDLoginDisconnect int32 = 0x00
)

// MaxStatusJSON caps a status response's JSON in bytes. The protocol caps it
// at 32767 characters (UTF-16 code units); no character takes more than four
// UTF-8 bytes, so this cap admits everything vanilla admits without having to
// count characters.
const MaxStatusJSON = 32767 * 4

// MaxStatusTrailer is how many bytes a Status Response may carry after its
// JSON string. Vanilla sends none; some mods (BetterCompatibilityChecker and
// similar, Gate issue #297) append their own data there.
const MaxStatusTrailer = 32 << 10

// MaxStatusResponseLen is the frame length to pass to ParseFrame when reading
// a status response: packet id, the JSON's length prefix, MaxStatusJSON and
// MaxStatusTrailer.
const MaxStatusResponseLen = 1 + 3 + MaxStatusJSON + MaxStatusTrailer

// pingLen is the size of the ping/pong payload: one big-endian int64.
const pingLen = 8

// AppendStatusRequest appends the empty Status Request frame.
func AppendStatusRequest(dst []byte) []byte {
	return AppendFrame(dst, IDStatusRequest, nil)
}

// AppendStatusResponse appends a Status Response frame carrying json as a
// String. json is written as given (it is not checked or re-encoded).
func AppendStatusResponse(dst []byte, json []byte) []byte {
	return appendStringFrame(dst, IDStatusRequest, json)
}

// ParseStatusResponse decodes the payload of a 0x00 status frame (from
// ParseFrame) and returns a copy of the JSON, so the caller may reuse its read
// buffer. The JSON's bytes are passed through untouched: neither UTF-8 nor
// JSON validity is checked here. Bytes after the string are ignored, as Gate
// ignores them: mods append data there that only their own client side reads,
// and vanilla clients never see it because a proxy answer carries the JSON only.
func ParseStatusResponse(payload []byte) (json []byte, err error) {
	raw, _, err := parseBytes(payload, MaxStatusJSON)
	if err != nil {
		return nil, fmt.Errorf("parse status response: %w", inFrame(err, "json"))
	}
	return bytes.Clone(raw), nil
}

// AppendPing appends a Ping frame carrying v. A Pong has the same id and the
// same bytes, so this writes either.
func AppendPing(dst []byte, v int64) []byte {
	dst = AppendVarInt(dst, int32(VarIntLen(IDPing)+pingLen))
	dst = AppendVarInt(dst, IDPing)
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// ParsePing decodes the payload of a 0x01 frame: exactly eight bytes.
func ParsePing(payload []byte) (int64, error) {
	if len(payload) != pingLen {
		return 0, fmt.Errorf("parse ping: %w: payload is %d bytes, want %d", ErrMalformed, len(payload), pingLen)
	}
	return int64(binary.BigEndian.Uint64(payload)), nil
}

// AppendLoginDisconnect appends a Login Disconnect frame carrying json, a
// JSON text component such as {"text":"...","color":"red"}, as a String.
func AppendLoginDisconnect(dst []byte, json []byte) []byte {
	return appendStringFrame(dst, IDLoginDisconnect, json)
}

// appendStringFrame writes a frame whose whole payload is one String, without
// building the payload separately first.
func appendStringFrame(dst []byte, id int32, s []byte) []byte {
	strLen := int32(len(s))
	dst = AppendVarInt(dst, int32(VarIntLen(id)+VarIntLen(strLen))+strLen)
	dst = AppendVarInt(dst, id)
	dst = AppendVarInt(dst, strLen)
	return append(dst, s...)
}
