package wire

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// MaxHandshakeLen caps the handshake frame's declared length (packet id plus
// payload). Vanilla clients send well under 300 bytes, but Floodgate and
// BungeeCord forwarding append encoded data after a NUL in the address and
// push real handshakes to a few KiB; 8 KiB keeps those working while bounding
// what an unauthenticated client can make the proxy buffer.
const MaxHandshakeLen = 8192

// MaxAddressLen caps the server address in bytes. Vanilla's 255-character
// limit is too small for the suffixes above, so the cap is by bytes, with
// headroom, and close to what MaxHandshakeLen allows anyway.
const MaxAddressLen = 8000

// DefaultPort is the port of a Minecraft server address that names none: the
// vanilla client dials it when neither the address nor an SRV record gives one.
const DefaultPort uint16 = 25565

// IDHandshake is the packet id of the handshake, the first frame a modern
// client sends.
const IDHandshake int32 = 0x00

// Intents a handshake can carry (the "next state" field).
const (
	IntentStatus   int32 = 1
	IntentLogin    int32 = 2
	IntentTransfer int32 = 3 // 1.20.5+: a login sent on by another server
)

// Handshake is the first packet of a modern (1.7+) connection.
type Handshake struct {
	Protocol int32  // protocol version; -1 from some pingers
	Address  string // raw server address including any NUL / "///" suffixes
	Port     uint16 // the port the player typed; not used for routing
	Intent   int32  // IntentStatus, IntentLogin or IntentTransfer
}

// IsLogin reports intent login or transfer: both lead to a player session.
func (h Handshake) IsLogin() bool {
	return h.Intent == IntentLogin || h.Intent == IntentTransfer
}

// ParseHandshake parses the first frame of a connection. n is the size of
// the whole frame (length prefix included), so b[:n] are the raw handshake
// bytes to replay and b[n:] is whatever the client sent after it (often its
// Login Start or Status Request), which must be forwarded too.
//
// ErrIncomplete (n == 0) means more bytes are needed. The frame length is
// capped at MaxHandshakeLen and refused with ErrTooLarge as soon as the
// length prefix shows it. The packet id must be 0x00 and the intent 1, 2 or
// 3; bytes left in the frame after the intent are malformed. The only
// allocation is the Address string, made once everything else checked out.
//
// Check for LegacyPingByte before calling: "FE" and "FE 01" also read as the
// start of a 254-byte frame, so a pre-1.6 legacy ping would wait here for
// bytes that never come.
func ParseHandshake(b []byte) (hs Handshake, n int, err error) {
	id, payload, n, err := ParseFrame(b, MaxHandshakeLen)
	// ErrIncomplete is never wrapped, and this is the path a caller takes
	// after every short read, so a plain comparison is enough and cheaper.
	if err == ErrIncomplete {
		if perr := checkHandshakePrefix(b); perr != nil {
			return Handshake{}, 0, fmt.Errorf("parse handshake: %w", perr)
		}
		return Handshake{}, 0, err
	}
	if err != nil {
		return Handshake{}, 0, fmt.Errorf("parse handshake: %w", err)
	}
	// The same first-bytes check as for an incomplete frame, so a client is never
	// accepted or refused depending on how its bytes were split into segments (an
	// overlong packet id such as 80 00 is refused either way).
	if perr := checkHandshakePrefix(b); perr != nil {
		return Handshake{}, 0, fmt.Errorf("parse handshake: %w", perr)
	}
	if id != IDHandshake {
		return Handshake{}, 0, fmt.Errorf("parse handshake: %w: packet id 0x%02x, want 0x00", ErrMalformed, id)
	}
	hs, err = parseHandshakePayload(payload)
	if err != nil {
		return Handshake{}, 0, fmt.Errorf("parse handshake: %w", err)
	}
	return hs, n, nil
}

// minHandshakeLen is the smallest possible frame body: id, 1-byte protocol, empty
// address, port and intent.
const minHandshakeLen = 1 + 1 + 1 + 2 + 1

// checkHandshakePrefix rejects an incomplete frame as soon as its first bytes show it
// can never be a handshake (an HTTP request, a TLS ClientHello, a port scanner's probe),
// so such a client is closed at once instead of holding its connection until the read
// deadline. Every prefix of a valid handshake passes.
func checkHandshakePrefix(b []byte) error {
	length, k, err := ParseVarInt(b)
	if err != nil {
		return nil // incomplete length prefix; ParseFrame already rejects bad ones
	}
	if length < minHandshakeLen {
		return fmt.Errorf("%w: frame length %d is too short for a handshake", ErrMalformed, length)
	}
	if len(b) > k && b[k] != byte(IDHandshake) {
		return fmt.Errorf("%w: packet id byte 0x%02x, want 0x00", ErrMalformed, b[k])
	}
	return nil
}

func parseHandshakePayload(p []byte) (Handshake, error) {
	proto, k, err := ParseVarInt(p)
	if err != nil {
		return Handshake{}, inFrame(err, "protocol version")
	}
	p = p[k:]
	addr, k, err := parseBytes(p, MaxAddressLen)
	if err != nil {
		return Handshake{}, inFrame(err, "server address")
	}
	p = p[k:]
	if len(p) < 2 {
		return Handshake{}, inFrame(ErrIncomplete, "server port")
	}
	port := binary.BigEndian.Uint16(p)
	p = p[2:]
	intent, k, err := ParseVarInt(p)
	if err != nil {
		return Handshake{}, inFrame(err, "intent")
	}
	if intent < IntentStatus || intent > IntentTransfer {
		return Handshake{}, fmt.Errorf("%w: intent %d, want 1, 2 or 3", ErrMalformed, intent)
	}
	if k != len(p) {
		return Handshake{}, fmt.Errorf("%w: %d bytes after the intent", ErrMalformed, len(p)-k)
	}
	if !utf8.Valid(addr) {
		return Handshake{}, fmt.Errorf("%w: server address is not valid UTF-8", ErrMalformed)
	}
	return Handshake{Protocol: proto, Address: string(addr), Port: port, Intent: intent}, nil
}

// AppendHandshake appends hs as a complete frame (length prefix, id 0x00,
// fields). It writes the fields as given; an Intent outside 1-3 produces a
// frame that ParseHandshake refuses.
func AppendHandshake(dst []byte, hs Handshake) []byte {
	body := VarIntLen(IDHandshake) + VarIntLen(hs.Protocol) +
		VarIntLen(int32(len(hs.Address))) + len(hs.Address) + 2 + VarIntLen(hs.Intent)
	dst = AppendVarInt(dst, int32(body))
	dst = AppendVarInt(dst, IDHandshake)
	dst = AppendVarInt(dst, hs.Protocol)
	dst = AppendString(dst, hs.Address)
	dst = binary.BigEndian.AppendUint16(dst, hs.Port)
	return AppendVarInt(dst, hs.Intent)
}
