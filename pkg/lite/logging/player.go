package logging

import (
	"strconv"
	"unicode/utf8"
)

// MaxPlayerString is how many bytes of a player-controlled string (a virtual host, a
// user name) a log line carries. A handshake address may hold 8000 bytes; a log line
// per connection must not.
const MaxPlayerString = 64

// Clip makes a player-controlled string safe for a log line: at most
// MaxPlayerString bytes (cut on a rune boundary, then "...(N bytes)" with the full
// length), and quoted with Go escapes when it holds anything but printable ASCII
// (NUL, control bytes, invalid UTF-8, terminal escapes), so a value cannot forge a
// line or an attribute in text logs. Plain short strings are returned as they are.
func Clip(s string) string { return clip(s, MaxPlayerString) }

// clip is Clip with a cap of max bytes.
func clip(s string, max int) string {
	if len(s) <= max && printableASCII(s) {
		return s
	}
	cut := s
	if len(s) > max {
		end := max
		for i := 0; i < utf8.UTFMax-1 && end > 0 && !utf8.RuneStart(s[end]); i++ {
			end--
		}
		cut = s[:end]
	}
	if !printableASCII(cut) {
		cut = strconv.QuoteToASCII(cut)
	}
	if len(s) > max {
		return cut + "...(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return cut
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\' {
			return false
		}
	}
	return true
}
