package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// LegacyPingByte is the first byte of a pre-1.7 server-list ping. No modern
// frame starts with it: as a length prefix it would need a continuation.
const LegacyPingByte = 0xFE

// MaxLegacyPingLen caps a 1.6 ping in bytes. Such a ping is 36 bytes plus
// two per host character, so the cap admits hosts of up to 238 characters,
// longer than any real one, while keeping what an unauthenticated client can
// make the proxy buffer small.
const MaxLegacyPingLen = 512

// LegacyKind tells which generation of client sent a legacy ping; it decides
// the reply format.
type LegacyKind uint8

const (
	LegacyBeta LegacyKind = iota // "FE" alone (pre-1.4): reply "motd§online§max"
	Legacy14                     // "FE 01" (1.4-1.5): reply "§1\0proto\0version\0motd\0online\0max"
	Legacy16                     // "FE 01 FA ..." MC|PingHost (1.6): same reply, carries host/port/protocol
)

// String names the kind for logs.
func (k LegacyKind) String() string {
	switch k {
	case LegacyBeta:
		return "beta"
	case Legacy14:
		return "1.4"
	case Legacy16:
		return "1.6"
	}
	return fmt.Sprintf("LegacyKind(%d)", uint8(k))
}

// LegacyPing is a parsed legacy server-list ping.
type LegacyPing struct {
	Kind     LegacyKind
	Protocol int32  // 1.6 only
	Host     string // 1.6 only; route it through CleanHost like a modern address
	Port     int32  // 1.6 only
}

// pingHostHeader is the fixed start of a 1.6 ping: FE 01, the plugin message
// id FA and the channel name as a legacy string (a big-endian uint16 length in
// UTF-16 units, then UTF-16BE).
var pingHostHeader = []byte{
	0xFE, 0x01, 0xFA, 0x00, 0x0B,
	0, 'M', 0, 'C', 0, '|', 0, 'P', 0, 'i', 0, 'n', 0, 'g', 0, 'H', 0, 'o', 0, 's', 0, 't',
}

// Offsets in a 1.6 ping after the header: the uint16 length of the rest, the
// protocol byte, the host's uint16 length in UTF-16 units, then the host and
// a big-endian int32 port.
const (
	legacyDataLenAt  = 27
	legacyProtocolAt = legacyDataLenAt + 2
	legacyHostLenAt  = legacyProtocolAt + 1
	legacyHostAt     = legacyHostLenAt + 2
	legacyFixedData  = 1 + 2 + 4 // protocol, host length, port
)

// ParseLegacyPing parses b, which starts with 0xFE. Pre-1.6 clients send no
// length or terminator, so the caller says whether the client has stopped
// sending (eof: a short wait expired, or EOF).
//
// With eof false, "FE", "FE 01" and every prefix of a 1.6 packet answer
// ErrIncomplete. With eof true, "FE" is LegacyBeta and "FE 01" or a truncated
// 1.6 packet is Legacy14 (answer anyway, without a host). Bytes that can never
// become a 1.6 packet are Legacy14 at once, eof or not, since waiting cannot
// help. A complete 1.6 packet is Legacy16 regardless of eof; a declared size
// above MaxLegacyPingLen is ErrTooLarge. n counts the bytes understood: 1 for
// LegacyBeta, 2 for Legacy14, the whole packet for Legacy16.
func ParseLegacyPing(b []byte, eof bool) (p LegacyPing, n int, err error) {
	switch {
	case len(b) == 0 && !eof:
		return LegacyPing{}, 0, ErrIncomplete
	case len(b) == 0:
		return LegacyPing{}, 0, fmt.Errorf("parse legacy ping: %w: no bytes", ErrMalformed)
	case b[0] != LegacyPingByte:
		return LegacyPing{}, 0, fmt.Errorf("parse legacy ping: %w: first byte 0x%02x, want 0xfe", ErrMalformed, b[0])
	case len(b) == 1 && !eof:
		return LegacyPing{}, 0, ErrIncomplete
	case len(b) == 1:
		return LegacyPing{Kind: LegacyBeta}, 1, nil
	case b[1] != 0x01:
		return LegacyPing{}, 0, fmt.Errorf("parse legacy ping: %w: byte 0x%02x after 0xfe, want 0x01", ErrMalformed, b[1])
	}
	p, n, err = parsePingHost(b)
	switch {
	case err == nil:
		return p, n, nil
	case errors.Is(err, ErrTooLarge):
		return LegacyPing{}, 0, fmt.Errorf("parse legacy ping: %w", err)
	case errors.Is(err, ErrIncomplete) && !eof:
		return LegacyPing{}, 0, ErrIncomplete
	}
	return LegacyPing{Kind: Legacy14}, 2, nil
}

// parsePingHost parses the 1.6 MC|PingHost packet, checking each field as
// soon as its bytes are there so that garbage is recognised early.
func parsePingHost(b []byte) (LegacyPing, int, error) {
	if len(b) < len(pingHostHeader) {
		if !bytes.Equal(b, pingHostHeader[:len(b)]) {
			return LegacyPing{}, 0, fmt.Errorf("%w: not an MC|PingHost packet", ErrMalformed)
		}
		return LegacyPing{}, 0, ErrIncomplete
	}
	if !bytes.Equal(b[:len(pingHostHeader)], pingHostHeader) {
		return LegacyPing{}, 0, fmt.Errorf("%w: not an MC|PingHost packet", ErrMalformed)
	}
	if len(b) < legacyProtocolAt {
		return LegacyPing{}, 0, ErrIncomplete
	}
	dataLen := int(binary.BigEndian.Uint16(b[legacyDataLenAt:]))
	total := legacyProtocolAt + dataLen
	if total > MaxLegacyPingLen {
		return LegacyPing{}, 0, fmt.Errorf("%w: ping of %d bytes above cap %d", ErrTooLarge, total, MaxLegacyPingLen)
	}
	if dataLen < legacyFixedData {
		return LegacyPing{}, 0, fmt.Errorf("%w: ping data length %d too short", ErrMalformed, dataLen)
	}
	if len(b) < legacyHostAt {
		return LegacyPing{}, 0, ErrIncomplete
	}
	hostLen := 2 * int(binary.BigEndian.Uint16(b[legacyHostLenAt:]))
	if legacyFixedData+hostLen != dataLen {
		return LegacyPing{}, 0, fmt.Errorf("%w: host length %d disagrees with data length %d", ErrMalformed, hostLen, dataLen)
	}
	if len(b) < total {
		return LegacyPing{}, 0, ErrIncomplete
	}
	portAt := legacyHostAt + hostLen
	return LegacyPing{
		Kind:     Legacy16,
		Protocol: int32(b[legacyProtocolAt]),
		Host:     decodeUTF16BE(b[legacyHostAt:portAt]),
		Port:     int32(binary.BigEndian.Uint32(b[portAt:])),
	}, total, nil
}

// decodeUTF16BE decodes big-endian UTF-16, turning unpaired surrogates into
// U+FFFD. An odd trailing byte is ignored.
func decodeUTF16BE(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) / 2)
	for i := 0; i+1 < len(b); i += 2 {
		r := rune(binary.BigEndian.Uint16(b[i:]))
		if !utf16.IsSurrogate(r) {
			sb.WriteRune(r)
			continue
		}
		if i+3 < len(b) {
			r2 := rune(binary.BigEndian.Uint16(b[i+2:]))
			if pair := utf16.DecodeRune(r, r2); pair != unicode.ReplacementChar {
				sb.WriteRune(pair)
				i += 2
				continue
			}
		}
		sb.WriteRune(unicode.ReplacementChar)
	}
	return sb.String()
}
