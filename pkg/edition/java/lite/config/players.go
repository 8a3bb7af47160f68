package config

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"

	"go.minekube.com/gate/pkg/lite/antibot"
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
	// Bots are the anti-bot checks (playerbots.go): `validNames`, `loginRate`,
	// `maxSessionsPerName` and their texts. A route's apply to its logins on top of
	// the global ones (a login must pass both); a route starts with the global texts.
	Bots antibot.Settings
	// AttackMode is `attackMode`, under config.lite.players only. Default: off.
	AttackMode antibot.AttackMode
}

// errFileNotGranted is why a discovered route may not name an access list file:
// a label must not make the proxy read a file.
var errFileNotGranted = errors.New("a label or annotation may not make the proxy read a file; only the config file names one (allow and deny may be used)")

// playersHandler is a route's `players` key; the route starts with the global text.
func (d *decoder) playersHandler(r *Route, l *Lite) map[string]handler {
	r.Players.Text, r.Players.Bots.Texts = l.Players.Text, l.Players.Bots.Texts
	return map[string]handler{"players": func(f entry) { d.decodePlayersAt(f, &r.Players, false) }}
}

// decodePlayers decodes `players`. A discovered route's allowFile is refused
// (ErrNotGranted: the route is served without the file), and the route then admits
// only the players its own allow list names: an allow list that cannot be honoured
// must not open the route to everyone.
func (d *decoder) decodePlayers(e entry, p *Players) { d.decodePlayersAt(e, p, true) }

// decodePlayersAt decodes `players` globally or on a route.
func (d *decoder) decodePlayersAt(e entry, p *Players, global bool) {
	var allow, deny []players.Entry
	handlers := d.botHandlers(p, global)
	maps.Copy(handlers, map[string]handler{
		"allow": func(f entry) { allow = append(allow, d.playerEntries(f)...) },
		"deny":  func(f entry) { deny = append(deny, d.playerEntries(f)...) },
		"allowFile": func(f entry) {
			if p.AllowFile = d.playersFile(f); p.AllowFile == "" && d.scope.discovered {
				allow = append(allow, players.Entry{}) // matches no one
			}
		},
		"denyFile": func(f entry) { p.DenyFile = d.playersFile(f) },
		"text": func(f entry) {
			if v, ok := d.textComponent(f); ok && v != nil {
				p.Text = v
			}
		},
	})
	d.mapping(e, handlers, nil)
	p.Allow, p.Deny = players.NewList(allow), players.NewList(deny)
}

// playerEntries decodes a name or UUID, or a list of them; every bad item is reported.
func (d *decoder) playerEntries(e entry) []players.Entry {
	items, ok := d.stringList(e)
	if !ok {
		return nil
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
	return entries
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
	if _, err := players.LoadFile(path); err != nil {
		d.invalid(e, "%v", err)
		return ""
	}
	return path
}
