package lite_test

import (
	"strconv"
	"testing"

	"go.minekube.com/gate/internal/mctest"
)

// blackhole returns a loopback address whose SYNs are dropped, so a dial to it times out.
func blackhole(t testing.TB) string {
	t.Helper()
	return mctest.BlackholeAddr(t)
}

func mustAtoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// legacy16Ping builds a 1.6 server-list ping by hand (independent of package wire).
func legacy16Ping(host string, port int32) []byte {
	utf16be := func(s string) []byte {
		var out []byte
		for _, r := range s {
			out = append(out, byte(r>>8), byte(r))
		}
		return out
	}
	b := []byte{0xFE, 0x01, 0xFA, 0x00, 11}
	b = append(b, utf16be("MC|PingHost")...)
	rest := 7 + 2*len(host)
	b = append(b, byte(rest>>8), byte(rest), 74, byte(len(host)>>8), byte(len(host)))
	b = append(b, utf16be(host)...)
	return append(b, byte(port>>24), byte(port>>16), byte(port>>8), byte(port))
}

// readLegacyKick reads a 0xFF kick and decodes its UTF-16BE text.
func readLegacyKick(t testing.TB, c *client) string {
	t.Helper()
	head := c.readN(3)
	if head[0] != 0xFF {
		t.Fatalf("want kick 0xFF, got %x", head)
	}
	n := int(head[1])<<8 | int(head[2])
	body := c.readN(2 * n)
	var rs []rune
	for i := 0; i+1 < len(body); i += 2 {
		rs = append(rs, rune(body[i])<<8|rune(body[i+1]))
	}
	return string(rs)
}
