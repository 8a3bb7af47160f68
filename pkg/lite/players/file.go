package players

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// MaxFileSize caps an access list file: a ban list of a hundred thousand players
// fits many times over, and a file past it is refused rather than read whole.
const MaxFileSize = 16 << 20

// File is an access list file: mc-router's allow/deny format (`global` and
// `servers`, each with `allowlist` and `denylist` entries of `uuid` and/or `name`),
// or a bare JSON list of such entries (vanilla's whitelist.json and
// banned-players.json are one), which is its global lists on both sides: the key
// that names the file (allowFile or denyFile) says which side counts.
type File struct {
	Global Lists
	// Servers are the lists of one server address each, keyed in lower case.
	Servers map[string]*Lists
}

type fileLists struct {
	Allowlist []Entry `json:"allowlist"`
	Denylist  []Entry `json:"denylist"`
}

type fileFormat struct {
	Global  fileLists            `json:"global"`
	Servers map[string]fileLists `json:"servers"`
}

// ParseFile reads an access list file's bytes. Fields this package does not know
// (the dates and reasons of banned-players.json) are ignored, as mc-router does.
func ParseFile(data []byte) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("access list file of %d bytes is over the %d-byte limit", len(data), MaxFileSize)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var entries []Entry
		if err := json.Unmarshal(t, &entries); err != nil {
			return nil, fmt.Errorf("parse access list: %w", err)
		}
		l := NewList(entries)
		return &File{Global: Lists{Allow: l, Deny: l}}, nil
	}
	var raw fileFormat
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse allow/deny file: %w", err)
	}
	f := &File{Global: raw.Global.compile()}
	if len(raw.Servers) > 0 {
		f.Servers = make(map[string]*Lists, len(raw.Servers))
		for host, l := range raw.Servers {
			c := l.compile()
			f.Servers[strings.ToLower(host)] = &c
		}
	}
	return f, nil
}

func (l fileLists) compile() Lists {
	return Lists{Allow: NewList(l.Allowlist), Deny: NewList(l.Denylist)}
}

// server returns the lists of host (nil if the file has none for it).
func (f *File) server(host string) *Lists {
	return f.Servers[host]
}

// Len is how many entries the file has, on both sides and every server.
func (f *File) Len() int {
	n := f.Global.Allow.n + f.Global.Deny.n
	for _, l := range f.Servers {
		n += l.Allow.n + l.Deny.n
	}
	return n
}
