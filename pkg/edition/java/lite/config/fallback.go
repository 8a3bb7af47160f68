package config

import "encoding/json"

// Fallback is the status response a route answers pings with when every
// backend is down (Gate's `fallback:`).
type Fallback struct {
	// MOTD is the description as text component JSON; nil shows none.
	MOTD json.RawMessage
	// VersionName is `version.name`. Default "" (empty).
	VersionName string
	// VersionProtocol is `version.protocol`; nil echoes the client's
	// protocol so the entry looks compatible.
	VersionProtocol *int32
	// Online and Max are `players.online` and `players.max`. Default 0.
	Online, Max int
	// Favicon is a PNG data URI; "" shows none. `favicon` may also name a PNG
	// file, read at load.
	Favicon string
}

const fallbackIgnored = "ignored: not supported by this proxy's fallback status"

func (d *decoder) decodeFallback(e entry) *Fallback {
	fb := &Fallback{}
	ok := d.mapping(e, map[string]handler{
		"motd": func(f entry) {
			if v, ok := d.textComponent(f); ok {
				fb.MOTD = v
			}
		},
		"version": func(f entry) { d.decodeVersion(f, fb) },
		"players": func(f entry) {
			d.mapping(f, map[string]handler{
				"online": func(g entry) { d.intField(g, -1<<31, &fb.Online) },
				"max":    func(g entry) { d.intField(g, -1<<31, &fb.Max) },
			}, map[string]string{"sample": fallbackIgnored})
		},
		"favicon": func(f entry) { d.favicon(f, &fb.Favicon) },
	}, map[string]string{"modInfo": fallbackIgnored})
	if !ok {
		return nil
	}
	return fb
}

func (d *decoder) decodeVersion(e entry, fb *Fallback) {
	d.mapping(e, map[string]handler{
		"name": func(f entry) { d.str(f, &fb.VersionName) },
		"protocol": func(f entry) {
			var v int64
			if d.integer(f, -1<<31, 1<<31-1, &v) {
				p := int32(v)
				fb.VersionProtocol = &p
			}
		},
	}, nil)
}
