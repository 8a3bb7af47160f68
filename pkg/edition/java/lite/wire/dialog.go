package wire

import "unicode/utf16"

// AppendNotice appends a configuration-state Show Dialog (1.21.6 on) with a
// notice: a title, one paragraph of text and the client's own OK button. The
// dialog is inline network NBT (a nameless root compound), text components as
// plain strings. Use only when ids.ShowDialog is not 0.
func (ids TransferIDs) AppendNotice(dst []byte, title, body string) []byte {
	p := []byte{tagCompound}
	p = appendNBTString(p, "type", "minecraft:notice")
	p = appendNBTString(p, "title", title)
	p = append(p, tagCompound)
	p = appendNBTName(p, "body")
	p = appendNBTString(p, "type", "minecraft:plain_message")
	p = appendNBTString(p, "contents", body)
	p = append(p, tagEnd, tagEnd)
	return AppendFrame(dst, ids.ShowDialog, p)
}

// NBT tag types this package writes.
const (
	tagEnd      = 0
	tagString   = 8
	tagCompound = 10
)

func appendNBTString(dst []byte, name, value string) []byte {
	dst = append(dst, tagString)
	dst = appendNBTName(dst, name)
	return appendModifiedUTF8(dst, value)
}

func appendNBTName(dst []byte, name string) []byte { return appendModifiedUTF8(dst, name) }

// maxNBTString is the most bytes an NBT string may take (its length is a u16).
const maxNBTString = 1<<16 - 1

// appendModifiedUTF8 appends s as Java's modified UTF-8 with its u16 length: NUL
// takes two bytes and a rune past the BMP is two 3-byte surrogates. A string
// longer than the length can say is cut at a rune.
func appendModifiedUTF8(dst []byte, s string) []byte {
	at := len(dst)
	dst = append(dst, 0, 0)
	for _, r := range s {
		before := len(dst)
		switch {
		case r == 0:
			dst = append(dst, 0xc0, 0x80)
		case r < 0x80:
			dst = append(dst, byte(r))
		case r < 0x800:
			dst = append(dst, 0xc0|byte(r>>6), 0x80|byte(r&0x3f))
		case r < 0x10000:
			dst = appendThreeBytes(dst, r)
		default:
			hi, lo := utf16.EncodeRune(r)
			dst = appendThreeBytes(appendThreeBytes(dst, hi), lo)
		}
		if len(dst)-at-2 > maxNBTString {
			dst = dst[:before]
			break
		}
	}
	n := len(dst) - at - 2
	dst[at], dst[at+1] = byte(n>>8), byte(n)
	return dst
}

func appendThreeBytes(dst []byte, r rune) []byte {
	return append(dst, 0xe0|byte(r>>12), 0x80|byte((r>>6)&0x3f), 0x80|byte(r&0x3f))
}
