package operator

import (
	"encoding/base64"
	"fmt"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"go.minekube.com/gate/pkg/lite/players"
)

// Kind is what an entry asks for.
type Kind string

// The kinds of entry.
const (
	// Maintenance closes a route (or every route, target "*") to new logins
	// except the bypass list; pings show Text as the MOTD.
	Maintenance Kind = "maintenance"
	// Drain takes a backend (target host:port) out of new logins; its live
	// sessions stay.
	Drain Kind = "drain"
	// Ban refuses a player by name, UUID or address range (target
	// "name:X", "uuid:X" or "ip:PREFIX"), told Text as the reason.
	Ban Kind = "ban"
	// Override changes what a route's pings show (target a route or "*"):
	// MOTD, favicon, version name, players max. Online counts stay real.
	Override Kind = "override"
)

// AllRoutes is the target of a maintenance or override that covers every route.
const AllRoutes = "*"

// Bounds on every field an operator writes: the whole state must fit one
// ConfigMap (1 MiB) with room to spare, and what a player is shown must fit the
// protocol's frames.
const (
	MaxTarget     = 160      // bytes of a target
	MaxText       = 256      // bytes of a maintenance text or ban reason
	MaxMOTD       = 512      // bytes of an override's MOTD
	MaxFavicon    = 24 << 10 // bytes of a favicon data URI
	MaxVersion    = 64       // bytes of a version name
	MaxPlayersMax = 1_000_000
	MaxBypass     = 256       // names or UUIDs a maintenance lets in
	MaxEntries    = 2000      // entries in a state
	MaxStateBytes = 768 << 10 // encoded state, all entries
	MaxBanFor     = 10 * 365 * 24 * time.Hour
	MaxBy         = 64 // bytes of the writer's name
)

// faviconPrefix is the only favicon form a client shows.
const faviconPrefix = "data:image/png;base64,"

// Entry is one piece of operator intent. Which fields count depends on Kind;
// the others must be empty.
type Entry struct {
	Kind   Kind   `json:"kind"`
	Target string `json:"target"`
	// Text is a maintenance's message (the Disconnect and the MOTD) or a ban's
	// reason. Plain text; § codes are shown by the client.
	Text string `json:"text,omitempty"`
	// Bypass are the names or UUIDs a maintenance lets in.
	Bypass []string `json:"bypass,omitempty"`
	// MOTD, Favicon, Version and MaxPlayers are an override's; empty (nil)
	// keeps the backend's.
	MOTD       string `json:"motd,omitempty"`
	Favicon    string `json:"favicon,omitempty"`
	Version    string `json:"version,omitempty"`
	MaxPlayers *int   `json:"maxPlayers,omitempty"`
	// Expires ends a ban; nil never.
	Expires *time.Time `json:"expires,omitempty"`
	// By and At are who wrote the entry and when (the audit trail, and the
	// order of last-writer-wins).
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// Key is the entry's identity in a State and in the ConfigMap's data: two
// entries with one key are one intent, the later replacing the earlier. It
// holds only the characters a ConfigMap key allows.
func (e *Entry) Key() string {
	return string(e.Kind) + "." + base64.RawURLEncoding.EncodeToString([]byte(e.Target))
}

// parseKey is Key's inverse, for reading a ConfigMap.
func parseKey(k string) (Kind, string, bool) {
	kind, enc, ok := strings.Cut(k, ".")
	if !ok {
		return "", "", false
	}
	t, err := base64.RawURLEncoding.DecodeString(enc)
	return Kind(kind), string(t), err == nil
}

// Normalize puts e's target in its one spelling (a ban's lower-case name,
// dashed UUID or masked prefix; a route's lower-case host), so that two
// spellings of one intent share a key. It fails for a target its kind cannot
// name.
func (e *Entry) Normalize() error {
	t := strings.TrimSpace(e.Target)
	switch e.Kind {
	case Ban:
		n, err := normalizeBan(t)
		if err != nil {
			return err
		}
		t = n
	case Maintenance, Override:
		t = strings.ToLower(strings.TrimSuffix(t, "."))
	case Drain:
		if _, err := netip.ParseAddrPort(t); err != nil && !hostPort(t) {
			return fmt.Errorf("drain target %q: want host:port", clip(t))
		}
	default:
		return fmt.Errorf("kind %q: want maintenance, drain, ban or override", clip(string(e.Kind)))
	}
	e.Target = t
	return nil
}

// normalizeBan spells a ban target canonically: name:x, uuid:x or ip:prefix.
// A bare value is taken as what it parses as.
func normalizeBan(t string) (string, error) {
	kind, v, ok := strings.Cut(t, ":")
	if !ok || (kind != "name" && kind != "uuid" && kind != "ip") {
		kind, v = guessBan(t)
	}
	switch kind {
	case "name", "uuid":
		pe, err := players.ParseEntry(v)
		if err != nil {
			return "", fmt.Errorf("ban: %w", err)
		}
		if pe.Name != "" {
			return "name:" + strings.ToLower(pe.Name), nil
		}
		return "uuid:" + pe.UUID.String(), nil
	default:
		p, err := parsePrefix(v)
		if err != nil {
			return "", fmt.Errorf("ban address %q: want an IP address or CIDR range", clip(v))
		}
		return "ip:" + p.String(), nil
	}
}

func guessBan(t string) (string, string) {
	if _, err := parsePrefix(t); err == nil {
		return "ip", t
	}
	return "name", t
}

func parsePrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-(p.Addr().BitLen()-p.Addr().Unmap().BitLen())).Masked(), nil
}

// hostPort reports whether s is a DNS name with a port.
func hostPort(s string) bool {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// clip shortens a value for an error message: a hostile body is not echoed whole.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	s = s[:40]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}
