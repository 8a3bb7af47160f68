package wire_test

import (
	"bytes"
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// knownErr reports whether err is one of the package's sentinels.
func knownErr(err error) bool {
	return errors.Is(err, wire.ErrIncomplete) || errors.Is(err, wire.ErrMalformed) || errors.Is(err, wire.ErrTooLarge)
}

func FuzzParseHandshake(f *testing.F) {
	for _, name := range []string{"login_1.20.4.hex", "status_1.8.hex", "login_forge_fml2.hex", "login_tcpshield.hex", "transfer_1.21.hex"} {
		f.Add(loadHex(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		hs, n, err := wire.ParseHandshake(b)
		if err != nil {
			if !knownErr(err) || n != 0 || hs != (wire.Handshake{}) {
				t.Fatalf("error %v with n=%d hs=%+v", err, n, hs)
			}
			return
		}
		if n <= 0 || n > len(b) {
			t.Fatalf("n = %d for %d bytes", n, len(b))
		}
		if again, m, err := wire.ParseHandshake(b[:n]); err != nil || again != hs || m != n {
			t.Fatalf("b[:n] parses differently: %+v, %d, %v", again, m, err)
		}
		for i := 0; i < n; i++ {
			if _, _, err := wire.ParseHandshake(b[:i]); err != wire.ErrIncomplete {
				t.Fatalf("prefix %d/%d: %v, want ErrIncomplete", i, n, err)
			}
		}
		re := wire.AppendHandshake(nil, hs)
		again, m, err := wire.ParseHandshake(re)
		if err != nil || again != hs || m != len(re) {
			t.Fatalf("Append(Parse) re-parses to %+v, %d, %v; want %+v", again, m, err, hs)
		}
	})
}

func FuzzParseFrame(f *testing.F) {
	f.Add(loadHex(f, "status_response_1.21.4.hex"), 1024)
	f.Add([]byte{0x01, 0x00}, 16)
	f.Add([]byte{0x80, 0x80, 0x40}, 8192)
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		id, payload, n, err := wire.ParseFrame(b, max)
		if err != nil {
			if !knownErr(err) || n != 0 || id != 0 || payload != nil {
				t.Fatalf("error %v with id=%d payload=% x n=%d", err, id, payload, n)
			}
			return
		}
		if n <= 0 || n > len(b) || n-len(payload) > 3+5 || id < 0 {
			t.Fatalf("id=%d n=%d payload %d bytes for %d input bytes", id, n, len(payload), len(b))
		}
		if len(payload) > 0 && &payload[0] != &b[n-len(payload)] {
			t.Fatalf("payload does not alias the end of the frame")
		}
		re := wire.AppendFrame(nil, id, payload)
		id2, payload2, m, err := wire.ParseFrame(re, max)
		if err != nil || id2 != id || !bytes.Equal(payload2, payload) || m != len(re) {
			t.Fatalf("Append(Parse) re-parses to %d, % x, %d, %v", id2, payload2, m, err)
		}
	})
}

func FuzzParseLegacyPing(f *testing.F) {
	for _, name := range []string{"legacy_1.6.hex", "legacy_1.4.hex", "legacy_beta.hex"} {
		f.Add(loadHex(f, name), false)
		f.Add(loadHex(f, name), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, eof bool) {
		p, n, err := wire.ParseLegacyPing(b, eof)
		if err != nil {
			if !knownErr(err) || n != 0 || p != (wire.LegacyPing{}) {
				t.Fatalf("error %v with n=%d p=%+v", err, n, p)
			}
			if errors.Is(err, wire.ErrIncomplete) && eof {
				t.Fatalf("ErrIncomplete at eof")
			}
			return
		}
		if n <= 0 || n > len(b) || n > wire.MaxLegacyPingLen {
			t.Fatalf("n = %d for %d bytes", n, len(b))
		}
		switch p.Kind {
		case wire.LegacyBeta:
			if n != 1 || p != (wire.LegacyPing{Kind: wire.LegacyBeta}) {
				t.Fatalf("beta ping %+v, n=%d", p, n)
			}
		case wire.Legacy14:
			if n != 2 || p != (wire.LegacyPing{Kind: wire.Legacy14}) {
				t.Fatalf("1.4 ping %+v, n=%d", p, n)
			}
		case wire.Legacy16:
			for _, atEOF := range []bool{false, true} {
				if again, m, err := wire.ParseLegacyPing(b[:n], atEOF); err != nil || again != p || m != n {
					t.Fatalf("b[:n] with eof=%v parses to %+v, %d, %v", atEOF, again, m, err)
				}
			}
		default:
			t.Fatalf("unknown kind %d", p.Kind)
		}
		_ = wire.AppendLegacyKick(nil, p.Kind, wire.LegacyStatus{MOTD: p.Host, Version: p.Host})
	})
}

func FuzzCleanHost(f *testing.F) {
	for _, s := range []string{
		"mc.example.com", "MC.Example.COM.", "play.example.com:25565", "[::1]:25565", "::1",
		"mc.example.com\x00FML2\x00", "Play.example.com///203.0.113.7:51234///1700000000///sig",
		"a.:1.", "host:", "..", "", "play.example.com\\abc\\1.2.3.4", "A.b.:1\\x\x00FML\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		got := wire.CleanHost(addr)
		if again := wire.CleanHost(got); again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", addr, got, again)
		}
		if strings.ContainsAny(got, "ABCDEFGHIJKLMNOPQRSTUVWXYZ\x00\\") || strings.Contains(got, "///") {
			t.Fatalf("CleanHost(%q) = %q keeps upper case, NUL, backslash or ///", addr, got)
		}
		if strings.HasPrefix(got, ".") || strings.HasSuffix(got, ".") {
			t.Fatalf("CleanHost(%q) = %q keeps an edge dot", addr, got)
		}
		host, suffix := wire.SplitAddress(addr)
		if host+suffix != addr || wire.CleanHost(host) != got {
			t.Fatalf("SplitAddress(%q) = %q, %q disagrees with CleanHost", addr, host, suffix)
		}
	})
}

func FuzzAddRealIP(f *testing.F) {
	for _, s := range []string{
		"mc.example.com", "mc.example.com\x00FML2\x00", "Play.example.com///203.0.113.7:51234///1700000000///sig",
		"a\x00b///c", "a/", "",
	} {
		f.Add(s, "203.0.113.7:51234", int64(1700000000))
	}
	f.Fuzz(func(t *testing.T, addr, client string, unix int64) {
		got := wire.AddRealIP(addr, client, unix)
		host, suffix := wire.SplitAddress(addr)
		switch {
		case strings.Contains(suffix, "///"):
			if got != addr {
				t.Fatalf("AddRealIP(%q) = %q changed an address that has a block", addr, got)
			}
			return
		case got != strings.TrimRight(host, "/")+"///"+client+"///"+strconv.FormatInt(unix, 10)+suffix:
			t.Fatalf("AddRealIP(%q, %q, %d) = %q: block not between host and suffix", addr, client, unix, got)
		}
		if again := wire.AddRealIP(got, "198.51.100.1:1", unix+1); again != got {
			t.Fatalf("second AddRealIP(%q) = %q appended another block", got, again)
		}
		if h, _ := wire.SplitAddress(got); h != strings.TrimRight(host, "/") {
			t.Fatalf("SplitAddress(%q) host %q, want %q", got, h, host)
		}
	})
}

// FuzzRealIPRewrite is the rewrite for a client that is not a trusted TCPShield
// front: whatever blocks the client hid in its address, the result carries exactly
// one, the proxy's, and every NUL field without "///" (Forge markers) survives in order.
func FuzzRealIPRewrite(f *testing.F) {
	for _, s := range []string{
		"mc.example.com", "mc.example.com\x00FML2\x00", "Play.example.com///6.6.6.6:1234///1700000000///sig",
		"mc.example.com///6.6.6.6:1234///1700000000\x00FML3\x00", "mc.example.com\x00FML2\x00///6.6.6.6:1///1",
		"a//\x00///\x00b", "////", "\x00\x00", "",
	} {
		f.Add(s, byte(7), uint16(51234), int64(1700000000))
	}
	f.Fuzz(func(t *testing.T, addr string, last byte, port uint16, unix int64) {
		client := netip.AddrPortFrom(netip.AddrFrom4([4]byte{203, 0, 113, last}), port).String()
		got := wire.AddRealIP(wire.StripRealIP(addr), client, unix)
		block := "///" + client + "///" + strconv.FormatInt(unix, 10)
		if strings.Count(got, "///") != 2 || !strings.Contains(got, block) {
			t.Fatalf("rewrite of %q = %q: want exactly the proxy's block %q", addr, got, block)
		}
		head, rest, hasNUL := strings.Cut(addr, "\x00")
		if i := strings.Index(head, "///"); i >= 0 {
			head = head[:i]
		}
		want := strings.TrimRight(head, "/") + block
		if hasNUL {
			for field := range strings.SplitSeq(rest, "\x00") {
				if !strings.Contains(field, "///") {
					want += "\x00" + field
				}
			}
		}
		if got != want {
			t.Fatalf("rewrite of %q = %q, want %q", addr, got, want)
		}
	})
}
