package wire

import (
	"bytes"
	"strings"
	"testing"
)

// The notice a parked 1.21.6+ player sees, byte for byte as network NBT; and
// Java's modified UTF-8 for what plain UTF-8 writes differently.
func TestNoticeBytes(t *testing.T) {
	ids, ok := LookupTransfer(771)
	if !ok || ids.ShowDialog == 0 {
		t.Fatalf("1.21.6: %+v, want a Show Dialog id", ids)
	}
	str := func(name, v string) []byte {
		b := append([]byte{8, 0, byte(len(name))}, name...)
		return append(append(b, 0, byte(len(v))), v...)
	}
	var want []byte
	want = append(want, 10)
	want = append(want, str("type", "minecraft:notice")...)
	want = append(want, str("title", "Wait")...)
	want = append(want, 10, 0, 4, 'b', 'o', 'd', 'y')
	want = append(want, str("type", "minecraft:plain_message")...)
	want = append(want, str("contents", "soon")...)
	want = append(want, 0, 0)
	frame := ids.AppendNotice(nil, "Wait", "soon")
	id, payload, _, err := ParseFrame(frame, len(frame))
	if err != nil || id != ids.ShowDialog || !bytes.Equal(payload, want) {
		t.Fatalf("frame %x (%v): id %#x payload %x, want %#x %x", frame, err, id, payload, ids.ShowDialog, want)
	}
	for _, c := range []struct {
		in   string
		want []byte
	}{
		{"a\x00b", []byte{0, 4, 'a', 0xc0, 0x80, 'b'}},
		{"é", []byte{0, 2, 0xc3, 0xa9}},
		{"😀", []byte{0, 6, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80}},
	} {
		if got := appendModifiedUTF8(nil, c.in); !bytes.Equal(got, c.want) {
			t.Errorf("%q: %x, want %x", c.in, got, c.want)
		}
	}
	long := appendModifiedUTF8(nil, strings.Repeat("é", 40000))
	if n := int(long[0])<<8 | int(long[1]); n != len(long)-2 || n > maxNBTString || n%2 != 0 {
		t.Fatalf("a 80,000-byte string: length %d for %d bytes, want at most %d, whole runes", n, len(long)-2, maxNBTString)
	}
}
