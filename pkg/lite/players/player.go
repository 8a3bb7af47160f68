package players

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"go.minekube.com/gate/pkg/lite/logging"
)

// Player is who a login says it is: the name from its Login Start and, from 1.19.1
// on, its UUID (uuid.Nil when the client sent none). It is the client's claim (see
// the package doc). Events and log lines carry it; metric labels never do (a name is
// unbounded).
type Player struct {
	Name string
	UUID uuid.UUID
}

// HasUUID reports whether the client sent a UUID.
func (p Player) HasUUID() bool { return p.UUID != uuid.Nil }

// maxName is the longest player name the protocol allows, in characters.
const maxName = 16

// Entry is one player on an access list: a name (matched case-insensitively), a
// UUID, or both (then both must match). An entry with neither matches no one, as in
// mc-router, but still makes an allow list non-empty.
type Entry struct {
	Name string    `json:"name,omitempty"`
	UUID uuid.UUID `json:"uuid,omitempty"`
}

// ErrBadEntry is why ParseEntry refused a string.
var ErrBadEntry = errors.New("not a player name or UUID")

// ParseEntry reads an access list item of the config: a UUID with or without
// dashes, else a name of 1 to 16 characters. The two never overlap: a UUID is 32 or
// 36 characters.
func ParseEntry(s string) (Entry, error) {
	if len(s) == 32 || len(s) == 36 {
		if id, err := uuid.Parse(s); err == nil {
			return Entry{UUID: id}, nil
		}
	}
	if n := utf8.RuneCountInString(s); n == 0 || n > maxName || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return Entry{}, fmt.Errorf("%w: %q (want a UUID, or a name of 1 to %d characters without spaces around it)", ErrBadEntry, s, maxName)
	}
	return Entry{Name: s}, nil
}

// String is the entry as the config writes it.
func (e Entry) String() string {
	switch {
	case e.Name != "" && e.UUID != uuid.Nil:
		return e.Name + "/" + e.UUID.String()
	case e.UUID != uuid.Nil:
		return e.UUID.String()
	}
	return e.Name
}

// key is a player folded for lookups: the name lower-cased into a fixed array
// (no allocation for the ASCII names every real client sends).
// A key never points into itself, so it stays on its caller's stack.
type key struct {
	id   uuid.UUID
	n    int    // length of the folded name in buf, when long is nil
	long []byte // the folded name when it does not fit buf or is not ASCII
	buf  [3 * maxName]byte
}

func (k *key) set(p Player) {
	k.id = p.UUID
	if len(p.Name) > len(k.buf) || !isASCII(p.Name) {
		k.long = []byte(strings.ToLower(p.Name))
		return
	}
	k.n = len(p.Name)
	for i := 0; i < len(p.Name); i++ {
		c := p.Name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		k.buf[i] = c
	}
}

// name is the folded name.
func (k *key) name() []byte {
	if k.long != nil {
		return k.long
	}
	return k.buf[:k.n]
}

// fold is the lookup form of a configured name, equal to what key.set makes of the
// same name.
func fold(name string) string { return strings.ToLower(name) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// AppendLog appends the player's log fields to kv: "player" (clipped and quoted like
// every player-controlled string) and "uuid" when sent. A nil player adds nothing.
func (p *Player) AppendLog(kv []any) []any {
	if p == nil {
		return kv
	}
	kv = append(kv, "player", logging.Clip(p.Name))
	if p.HasUUID() {
		kv = append(kv, "uuid", p.UUID) // a fmt.Stringer: formatted only when written
	}
	return kv
}
