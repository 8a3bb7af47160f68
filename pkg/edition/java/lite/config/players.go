package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"go.minekube.com/gate/pkg/lite/players"
)

// DefaultDeniedText is what a player an access list refuses is told.
const DefaultDeniedText = "You are not allowed to join this server."

// Players is `players` under config.lite and on a route: who may join, by the
// name and UUID their Login Start claims (package players has the rules and
// mc-router's file format; docs/lite/players.md says when an allow list is sound).
// The global lists and a route's are merged for the route's logins.
type Players struct {
	// Rules are `allow`, `deny` (a name or a UUID with or without dashes, or a
	// list of them) and `allowFile`, `denyFile` (made absolute against the
	// config's directory). Default: none, everyone may join.
	players.Rules
	// Text is the Login Disconnect a refused player gets (`text`), as text
	// component JSON; a route without one has the global one. Default
	// DefaultDeniedText.
	Text json.RawMessage
}

// errFileNotGranted is why a discovered route may not name an access list file:
// a label must not make the proxy read a file.
var errFileNotGranted = errors.New("a label or annotation may not make the proxy read a file; only the config file names one (allow and deny may be used)")

// playersHandler is a route's `players` key; the route starts with the global text.
func (d *decoder) playersHandler(r *Route, l *Lite) map[string]handler {
	r.Players.Text = l.Players.Text
	return map[string]handler{"players": func(f entry) { d.decodePlayers(f, &r.Players) }}
}

// decodePlayers decodes `players`.
func (d *decoder) decodePlayers(e entry, p *Players) {
	d.mapping(e, map[string]handler{
		"allow":     func(f entry) { p.Allow = d.playerList(f) },
		"deny":      func(f entry) { p.Deny = d.playerList(f) },
		"allowFile": func(f entry) { p.AllowFile = d.playersFile(f) },
		"denyFile":  func(f entry) { p.DenyFile = d.playersFile(f) },
		"text": func(f entry) {
			if v, ok := d.textComponent(f); ok && v != nil {
				p.Text = v
			}
		},
	}, nil)
}

// playerList decodes a name or UUID, or a list of them; every bad item is reported.
func (d *decoder) playerList(e entry) players.List {
	items, ok := d.stringList(e)
	if !ok {
		return players.List{}
	}
	entries := make([]players.Entry, 0, len(items))
	for _, it := range items {
		en, err := players.ParseEntry(it.s)
		if err != nil {
			d.errorf(it.line, it.path, ErrInvalid, "%v", err)
			continue
		}
		entries = append(entries, en)
	}
	return players.NewList(entries)
}

// playersFile decodes `allowFile` or `denyFile`: a path, checked to load now so a
// typo is found at load rather than by the first player.
func (d *decoder) playersFile(e entry) string {
	n, ok := d.scalar(e, "a path to an access list file")
	if !ok {
		return ""
	}
	if d.scope.discovered {
		d.errorf(n.Line, e.path, ErrNotGranted, "%v", errFileNotGranted)
		return ""
	}
	path := n.Value
	if !filepath.IsAbs(path) {
		path = filepath.Join(d.dir, path)
	}
	data, err := os.ReadFile(path)
	if err == nil {
		_, err = players.ParseFile(data)
	}
	if err != nil {
		d.invalid(e, "%v", err)
		return ""
	}
	return path
}
