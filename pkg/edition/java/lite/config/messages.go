package config

import "encoding/json"

// Messages are the disconnect texts a player sees, as text component JSON.
// nil means the built-in default. In YAML each is a legacy string (becomes
// {"text": ...}), JSON object text, or a component written as a mapping.
type Messages struct {
	// UnknownHost is sent when no route matches the host (global only).
	UnknownHost json.RawMessage
	// Unavailable is sent when every backend of the route failed.
	Unavailable json.RawMessage
}

// decodeMessages decodes `disconnect:`. perRoute rejects unknownHost, which
// only makes sense globally: a route that matched knows the host.
func (d *decoder) decodeMessages(e entry, m *Messages, perRoute bool) {
	d.mapping(e, map[string]handler{
		"unknownHost": func(f entry) {
			if perRoute {
				d.invalid(f, "only valid under config.lite.disconnect: a route that matched knows the host")
				return
			}
			if v, ok := d.textComponent(f); ok {
				m.UnknownHost = v
			}
		},
		"unavailable": func(f entry) {
			if v, ok := d.textComponent(f); ok {
				m.Unavailable = v
			}
		},
	}, nil)
}
