package wire

import (
	"strconv"
	"strings"
)

// SplitAddress cuts a handshake's server address at the first NUL or the
// first "///", whichever comes first. host is before the cut; suffix is the
// rest including the separator, "" if there is none. Forge/NeoForge markers,
// Floodgate data and BungeeCord forwarding follow a NUL; TCPShield's RealIP
// data follows "///". The suffix is what a host rewrite must keep.
func SplitAddress(addr string) (host, suffix string) {
	cut := len(addr)
	if i := strings.IndexByte(addr, 0); i >= 0 {
		cut = i
	}
	if j := strings.Index(addr[:cut], "///"); j >= 0 {
		cut = j
	}
	return addr[:cut], addr[cut:]
}

// AddRealIP writes TCPShield's RealIP block into a handshake's server address, so a
// TCPShield-aware backend sees the player's address: "///client///unix" goes right after
// the host, before any NUL suffix (Forge markers). client is the player's "ip:port"
// (IPv6 in brackets), unix the time in seconds. An address that already carries a block
// (any "///", as SplitAddress cuts) is returned as it is: a block is never appended
// twice. That keeps the block of a trusted front (TCPShield itself); an address from
// anyone else must go through StripRealIP first, or the player names their own IP.
func AddRealIP(addr, client string, unix int64) string {
	host, suffix := SplitAddress(addr)
	if strings.Contains(suffix, "///") {
		return addr
	}
	return strings.TrimRight(host, "/") + "///" + client + "///" + strconv.FormatInt(unix, 10) + suffix
}

// StripRealIP removes every RealIP block from a server address, so that AddRealIP
// then writes the only one: the host part is cut at its first "///", and any
// NUL-separated field that contains "///" is dropped (a backend plugin that splits the
// whole address at "///" would read a block hidden after a Forge marker). Every other
// field, Forge/FML markers and Floodgate data included, is kept in order. An address
// without "///" is returned as it is.
func StripRealIP(addr string) string {
	if !strings.Contains(addr, "///") {
		return addr
	}
	head, rest, hasNUL := strings.Cut(addr, "\x00")
	if i := strings.Index(head, "///"); i >= 0 {
		head = head[:i]
	}
	if !hasNUL {
		return head
	}
	var b strings.Builder
	b.Grow(len(addr))
	b.WriteString(head)
	for field := range strings.SplitSeq(rest, "\x00") {
		if !strings.Contains(field, "///") {
			b.WriteByte(0)
			b.WriteString(field)
		}
	}
	return b.String()
}

// CleanHost returns the routing key of a handshake's server address:
// SplitAddress's host cut at its first backslash (an Infinity-filter front
// sends "host\GUID\ip"; mc-router cuts there too, and nothing after the cut
// is trusted or read), without a ":port" the player may have typed, without
// leading or trailing dots (SRV-resolved names end in one), lower-cased
// (ASCII only, as DNS names are). It returns a substring of addr, without
// allocating, unless there is upper case to fold.
//
// A port is removed only when the part after the last ':' is one or more
// digits and the host is not a bare IPv6 literal: "host:25565" and
// "[::1]:25565" lose it ("[::1]" keeps its brackets), while "::1" and
// "2001:db8::25" (more than one ':', no brackets) are kept whole. CleanHost is
// idempotent: CleanHost(CleanHost(x)) == CleanHost(x).
func CleanHost(addr string) string {
	host, _ := SplitAddress(addr)
	if i := strings.IndexByte(host, '\\'); i >= 0 {
		host = host[:i]
	}
	// Dots are trimmed on both sides of the port removal so that
	// "host.:25565" and "host:25565." both end up as "host".
	host = strings.Trim(host, ".")
	host = stripPort(host)
	host = strings.Trim(host, ".")
	return lowerASCII(host)
}

// stripPort removes a trailing ":digits" unless h is a bare IPv6 literal.
func stripPort(h string) string {
	i := strings.LastIndexByte(h, ':')
	if i < 0 || !allDigits(h[i+1:]) {
		return h
	}
	if h[0] == '[' {
		if h[i-1] == ']' {
			return h[:i]
		}
		return h // "[::1": the digits belong to the address
	}
	if strings.IndexByte(h[:i], ':') >= 0 {
		return h // bare IPv6 literal: its last group may look like a port
	}
	return h[:i]
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// lowerASCII folds A-Z only, returning s itself when there is nothing to fold.
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
