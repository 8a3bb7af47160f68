package config

import (
	"encoding/json"
	"errors"

	"go.minekube.com/gate/pkg/lite/antibot"
)

// errAttackModeGlobal is why `attackMode` is refused on a route: it counts logins
// over all routes, so only the global players section sets it.
var errAttackModeGlobal = errors.New("attackMode counts logins over all routes; set it under config.lite.players")

// botHandlers are the anti-bot keys of `players` (package antibot has the checks
// and their defaults). attackMode is global only: on a route, and from a label,
// it is refused.
func (d *decoder) botHandlers(p *Players, global bool) map[string]handler {
	b := &p.Bots
	text := func(dst *json.RawMessage) handler {
		return func(f entry) {
			if v, ok := d.textComponent(f); ok && v != nil {
				*dst = v
			}
		}
	}
	return map[string]handler{
		"validNames":         func(f entry) { d.boolean(f, &b.ValidNames) },
		"loginRate":          func(f entry) { d.decodeRate(f, &b.LoginRate) },
		"maxSessionsPerName": func(f entry) { d.intField(f, 0, &b.MaxSessionsPerName) },
		"invalidNameText":    text(&b.Texts.InvalidName),
		"loginRateText":      text(&b.Texts.NameRate),
		"sessionsText":       text(&b.Texts.Sessions),
		"attackMode": func(f entry) {
			if !global {
				kind := ErrInvalid
				if d.scope.discovered {
					kind = ErrNotGranted
				}
				d.errorf(f.val.Line, f.path, kind, "%v", errAttackModeGlobal)
				return
			}
			d.decodeAttackMode(f, &p.AttackMode)
		},
	}
}

// decodeRate decodes a per-name login rate: `ops` per second and `burst`, both
// required (the keys of config.quota's buckets); null is no limit.
func (d *decoder) decodeRate(e entry, r *antibot.Rate) {
	var got antibot.Rate
	if isNull(resolve(e.val)) { // null: no limit
		*r = got
		return
	}
	var burst int64
	if !d.mapping(e, map[string]handler{
		"ops":   func(f entry) { d.number(f, &got.Ops) },
		"burst": func(f entry) { d.integer(f, 1, 1<<31-1, &burst) },
	}, nil) {
		return
	}
	got.Burst = int(burst)
	if got.Ops <= 0 || got.Burst < 1 {
		d.invalid(e, "want ops > 0 and burst >= 1, e.g. {ops: 0.3, burst: 3}, got ops %g, burst %d", got.Ops, got.Burst)
		return
	}
	*r = got
}

// decodeAttackMode decodes `attackMode` (null is off); window and calm get their
// defaults here.
func (d *decoder) decodeAttackMode(e entry, a *antibot.AttackMode) {
	if isNull(resolve(e.val)) { // null: off
		*a = antibot.AttackMode{}
		return
	}
	got := antibot.AttackMode{Window: antibot.DefaultWindow, Calm: antibot.DefaultCalm}
	if !d.mapping(e, map[string]handler{
		"above":  func(f entry) { d.number(f, &got.Above) },
		"window": func(f entry) { d.positive(f, &got.Window) },
		"calm":   func(f entry) { d.positive(f, &got.Calm) },
		"text": func(f entry) {
			if v, ok := d.textComponent(f); ok && v != nil {
				got.Text = v
			}
		},
	}, nil) {
		return
	}
	if got.Above <= 0 {
		d.invalid(e, "want above > 0 (logins per second over all routes), got %g", got.Above)
		return
	}
	*a = got
}
