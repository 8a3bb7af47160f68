package players

import "github.com/google/uuid"

// List is a compiled access list: lookups by folded name and UUID cost no
// allocation, however long the list. The zero List is empty.
type List struct {
	n     int // entries, including ones that match no one
	names map[string]struct{}
	ids   map[uuid.UUID]struct{}
	// both holds entries naming a UUID and a name: the folded names per UUID.
	both map[uuid.UUID][]string
}

// NewList compiles entries.
func NewList(entries []Entry) List {
	l := List{n: len(entries)}
	for _, e := range entries {
		switch {
		case e.UUID != uuid.Nil && e.Name != "":
			if l.both == nil {
				l.both = make(map[uuid.UUID][]string)
			}
			l.both[e.UUID] = append(l.both[e.UUID], fold(e.Name))
		case e.UUID != uuid.Nil:
			if l.ids == nil {
				l.ids = make(map[uuid.UUID]struct{})
			}
			l.ids[e.UUID] = struct{}{}
		case e.Name != "":
			if l.names == nil {
				l.names = make(map[string]struct{})
			}
			l.names[fold(e.Name)] = struct{}{}
		}
	}
	return l
}

// Len is how many entries the list has.
func (l *List) Len() int { return l.n }

// has reports whether an entry matches the player k describes. A UUID entry never
// matches a player who sent none.
func (l *List) has(k *key) bool {
	if l.n == 0 {
		return false
	}
	if _, ok := l.names[string(k.name())]; ok {
		return true
	}
	if k.id == uuid.Nil {
		return false
	}
	if _, ok := l.ids[k.id]; ok {
		return true
	}
	for _, name := range l.both[k.id] {
		if name == string(k.name()) {
			return true
		}
	}
	return false
}

// Lists are one scope's allow and deny lists.
type Lists struct {
	Allow, Deny List
}

// allowed applies mc-router's precedence to the allow and deny lists of every
// scope that applies, merged: a player on any allow list is allowed; else, if any
// allow list has entries, refused; else refused if on a deny list; else allowed.
// So an allow list wins over every deny list, and a global allow list shuts out
// everyone not on some allow list.
func allowed(k *key, allow, deny []*List) bool {
	listed := false
	for _, l := range allow {
		if l.has(k) {
			return true
		}
		listed = listed || l.n > 0
	}
	if listed {
		return false
	}
	for _, l := range deny {
		if l.has(k) {
			return false
		}
	}
	return true
}
