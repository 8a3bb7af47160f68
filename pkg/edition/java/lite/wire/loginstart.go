package wire

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// IDLoginStart is the packet id of Login Start, the client's first frame after a
// handshake with a login (or transfer) intent, in every version since 1.7.
const IDLoginStart int32 = 0x00

// Protocol versions where Login Start changed layout.
const (
	// ProtocolSigned (1.19) added optional signature data: the client's chat
	// key, its expiry and Mojang's signature of it.
	ProtocolSigned int32 = 759
	// ProtocolSignedUUID (1.19.1, 1.19.2) added an optional UUID after it.
	ProtocolSignedUUID int32 = 760
	// ProtocolOptionalUUID (1.19.3 to 1.20.1) dropped the signature data.
	ProtocolOptionalUUID int32 = 761
	// ProtocolUUID (1.20.2 on) made the UUID required.
	ProtocolUUID int32 = 764
	// protocolSnapshot is the bit that marks a snapshot's protocol number.
	protocolSnapshot int32 = 1 << 30
)

// Caps of Login Start's fields: what vanilla itself accepts. A name is at most 16
// characters (up to 3 bytes each in UTF-8); the key and signature of 1.19's
// signature data are capped at 512 and 4096 bytes by the vanilla server.
const (
	MaxPlayerName   = 16
	maxNameBytes    = 3 * MaxPlayerName
	maxPublicKey    = 512
	maxKeySignature = 4096
	// MaxLoginStartLen caps the frame's declared length (packet id plus payload):
	// the largest 1.19 Login Start with signature data fits with room to spare.
	MaxLoginStartLen = 1 + 1 + maxNameBytes + 1 + 8 + 2 + maxPublicKey + 2 + maxKeySignature + 1 + 16
)

// LoginStart is what a Login Start says about the player: the name, and from 1.19.1
// on the UUID (HasUUID false when the client sent none). Both are the client's claim:
// only a backend in online mode checks them. The 1.19 signature data is skipped.
type LoginStart struct {
	Name    string
	UUID    [16]byte
	HasUUID bool
}

// ParseLoginStart decodes the Login Start frame at the start of b, as a client of the
// given protocol version lays it out; n is the frame's size. Like ParseHandshake it
// answers ErrIncomplete until the frame is whole, ErrTooLarge as soon as its length
// prefix declares more than MaxLoginStartLen, and ErrMalformed for a wrong packet id,
// a field that runs past the frame, a boolean other than 0 or 1, or bytes left over.
// A snapshot (protocol bit 30 set) is read leniently: the name, then a UUID if exactly
// 16 bytes follow it. The only allocation is the Name string.
func ParseLoginStart(b []byte, protocol int32) (ls LoginStart, n int, err error) {
	id, p, n, err := ParseFrame(b, MaxLoginStartLen)
	if err == ErrIncomplete {
		return LoginStart{}, 0, err
	}
	if err == nil && id != IDLoginStart {
		err = fmt.Errorf("%w: packet id 0x%02x, want 0x00", ErrMalformed, id)
	}
	if err == nil {
		ls, err = parseLoginStartPayload(p, protocol)
	}
	if err != nil {
		return LoginStart{}, 0, fmt.Errorf("parse login start: %w", err)
	}
	return ls, n, nil
}

func parseLoginStartPayload(p []byte, protocol int32) (LoginStart, error) {
	name, k, err := parseBytes(p, maxNameBytes)
	if err != nil {
		return LoginStart{}, inFrame(err, "name")
	}
	if !utf8.Valid(name) || utf8.RuneCount(name) > MaxPlayerName {
		return LoginStart{}, fmt.Errorf("%w: name is not up to %d characters of UTF-8", ErrMalformed, MaxPlayerName)
	}
	p = p[k:]
	var ls LoginStart
	switch {
	case protocol&protocolSnapshot != 0:
		ls.HasUUID = len(p) == 16
		if !ls.HasUUID {
			p = p[len(p):]
		}
	case protocol >= ProtocolUUID:
		ls.HasUUID = true
	case protocol >= ProtocolOptionalUUID:
		ls.HasUUID, p, err = parseBool(p, "has UUID")
	case protocol >= ProtocolSigned:
		if p, err = skipSignature(p); err == nil && protocol >= ProtocolSignedUUID {
			ls.HasUUID, p, err = parseBool(p, "has UUID")
		}
	}
	if err != nil {
		return LoginStart{}, err
	}
	if ls.HasUUID {
		if len(p) < 16 {
			return LoginStart{}, inFrame(ErrIncomplete, "UUID")
		}
		p = p[copy(ls.UUID[:], p):]
	}
	if len(p) != 0 {
		return LoginStart{}, fmt.Errorf("%w: %d bytes after the last field", ErrMalformed, len(p))
	}
	ls.Name = string(name)
	return ls, nil
}

// skipSignature skips 1.19's optional signature data: a boolean, then the key's
// expiry (a long), the public key and its signature.
func skipSignature(p []byte) ([]byte, error) {
	has, p, err := parseBool(p, "has signature data")
	if err != nil || !has {
		return p, err
	}
	if len(p) < 8 {
		return nil, inFrame(ErrIncomplete, "key expiry")
	}
	p = p[8:]
	_, k, err := parseBytes(p, maxPublicKey)
	if err != nil {
		return nil, inFrame(err, "public key")
	}
	p = p[k:]
	_, k, err = parseBytes(p, maxKeySignature)
	if err != nil {
		return nil, inFrame(err, "key signature")
	}
	return p[k:], nil
}

// parseBool reads a protocol Boolean: one byte, 0 or 1.
func parseBool(p []byte, field string) (bool, []byte, error) {
	switch {
	case len(p) == 0:
		return false, nil, inFrame(ErrIncomplete, field)
	case p[0] > 1:
		return false, nil, fmt.Errorf("%w: %s is 0x%02x, want 0 or 1", ErrMalformed, field, p[0])
	}
	return p[0] == 1, p[1:], nil
}

// Signature is 1.19's optional signature data, for AppendLoginStart (a Lite proxy
// never reads it).
type Signature struct {
	Expires   int64
	PublicKey []byte
	Signed    []byte
}

// AppendLoginStart appends a Login Start frame for ls as a client of protocol lays
// it out. sig is written only for 1.19 to 1.19.2 (nil: none). A UUID is written where
// the layout allows one: always from 1.20.2, when ls.HasUUID from 1.19.1.
func AppendLoginStart(dst []byte, protocol int32, ls LoginStart, sig *Signature) []byte {
	p := AppendString(nil, ls.Name)
	if protocol >= ProtocolSigned && protocol < ProtocolOptionalUUID {
		p = appendBool(p, sig != nil)
		if sig != nil {
			p = binary.BigEndian.AppendUint64(p, uint64(sig.Expires))
			p = AppendString(p, string(sig.PublicKey))
			p = AppendString(p, string(sig.Signed))
		}
	}
	switch {
	case protocol >= ProtocolUUID:
		p = append(p, ls.UUID[:]...)
	case protocol >= ProtocolSignedUUID:
		p = appendBool(p, ls.HasUUID)
		if ls.HasUUID {
			p = append(p, ls.UUID[:]...)
		}
	}
	return AppendFrame(dst, IDLoginStart, p)
}

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}
