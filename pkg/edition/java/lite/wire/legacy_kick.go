package wire

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
)

// MaxLegacyKickUnits caps the kick text in UTF-16 code units: legacy clients
// read the kick reason with a 256-character limit and drop the connection
// with an error instead of showing anything longer.
const MaxLegacyKickUnits = 256

// legacyKickID is the packet id of the legacy kick (disconnect) packet.
const legacyKickID = 0xFF

// sectionSign introduces a legacy formatting code and, in the Beta reply
// format, separates the fields.
const sectionSign = "§"

// LegacyStatus is what a legacy server-list reply shows.
type LegacyStatus struct {
	Protocol int32
	Version  string
	MOTD     string // plain text, may contain § codes
	Online   int
	Max      int
}

// AppendLegacyKick appends the 0xFF kick packet that answers a legacy ping of
// the given kind: FF, a big-endian uint16 length in UTF-16 code units, then
// the UTF-16BE text. Kinds other than LegacyBeta get the 1.4+ format.
//
// The Beta format strips "§" from the MOTD (it is the field separator there),
// and the 1.4+ format strips NUL from the version and MOTD (its separator).
// The text is kept within MaxLegacyKickUnits by shortening the MOTD first and
// then the version; the numbers are never cut.
func AppendLegacyKick(dst []byte, kind LegacyKind, st LegacyStatus) []byte {
	online, maxPlayers := strconv.Itoa(st.Online), strconv.Itoa(st.Max)
	dst = append(dst, legacyKickID, 0, 0)
	start := len(dst)
	if kind == LegacyBeta {
		motd := strings.ReplaceAll(st.MOTD, sectionSign, "")
		fixed := 2 + len(online) + len(maxPlayers) // two separators, ASCII digits
		dst = appendUTF16BE(dst, truncateUnits(motd, MaxLegacyKickUnits-fixed))
		dst = appendUTF16BE(dst, sectionSign+online+sectionSign+maxPlayers)
	} else {
		proto := strconv.Itoa(int(st.Protocol))
		version := strings.ReplaceAll(st.Version, "\x00", "")
		motd := strings.ReplaceAll(st.MOTD, "\x00", "")
		// "§1" plus five NUL separators, and the ASCII numbers.
		budget := MaxLegacyKickUnits - (2 + 5 + len(proto) + len(online) + len(maxPlayers))
		version = truncateUnits(version, budget)
		motd = truncateUnits(motd, budget-utf16Len(version))
		dst = appendUTF16BE(dst, sectionSign+"1\x00"+proto+"\x00")
		dst = appendUTF16BE(dst, version)
		dst = appendUTF16BE(dst, "\x00")
		dst = appendUTF16BE(dst, motd)
		dst = appendUTF16BE(dst, "\x00"+online+"\x00"+maxPlayers)
	}
	binary.BigEndian.PutUint16(dst[start-2:], uint16((len(dst)-start)/2))
	return dst
}

// appendUTF16BE appends s as big-endian UTF-16. Ranging over s already
// turns invalid UTF-8 into U+FFFD, so every rune here is encodable.
func appendUTF16BE(dst []byte, s string) []byte {
	for _, r := range s {
		if utf16.RuneLen(r) == 2 {
			hi, lo := utf16.EncodeRune(r)
			dst = binary.BigEndian.AppendUint16(dst, uint16(hi))
			dst = binary.BigEndian.AppendUint16(dst, uint16(lo))
			continue
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(r))
	}
	return dst
}

// utf16Len counts the UTF-16 code units appendUTF16BE writes for s.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if utf16.RuneLen(r) == 2 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// truncateUnits shortens s to at most limit UTF-16 code units without
// splitting a character, and drops a "§" left dangling at the cut (it would
// swallow the next field's first character as a format code).
func truncateUnits(s string, limit int) string {
	units := 0
	for i, r := range s {
		w := 1
		if utf16.RuneLen(r) == 2 {
			w = 2
		}
		if units+w > limit {
			return strings.TrimSuffix(s[:i], sectionSign)
		}
		units += w
	}
	return s
}
