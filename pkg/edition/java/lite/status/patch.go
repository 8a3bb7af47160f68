package status

import (
	"encoding/json"
	"strconv"
)

// Patch is what an operator changes in a route's status answers (package
// operator's maintenance and overrides); a zero field keeps the backend's.
// Players online and the sample always stay the backend's: the counts are real.
type Patch struct {
	Description json.RawMessage // a text component
	Favicon     string          // a data:image/png;base64 URI
	Version     string          // version.name; the protocol stays the backend's
	Max         *int            // players.max
}

// IsZero reports whether the patch changes nothing.
func (p *Patch) IsZero() bool {
	return p == nil || p.Description == nil && p.Favicon == "" && p.Version == "" && p.Max == nil
}

// Apply returns body with the patch applied, every other field as the backend
// wrote it. A body that is not a JSON object, or a result over
// wire.MaxStatusJSON, is returned as it is.
func (p *Patch) Apply(body []byte) []byte {
	if p.IsZero() {
		return body
	}
	out, ok := rewrite(body, func(doc, players map[string]json.RawMessage, _ bool) {
		if p.Description != nil {
			doc["description"] = p.Description
		}
		if p.Favicon != "" {
			doc["favicon"], _ = marshalPlain(p.Favicon)
		}
		if p.Max != nil {
			players["max"] = json.RawMessage(strconv.Itoa(*p.Max))
		}
		if p.Version != "" {
			doc["version"] = withVersionName(doc["version"], p.Version)
		}
	})
	if !ok {
		return body
	}
	return out
}

// withVersionName sets name in a version object, keeping its protocol.
func withVersionName(raw json.RawMessage, name string) json.RawMessage {
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil || v == nil {
		v = map[string]json.RawMessage{"protocol": json.RawMessage("-1")}
	}
	v["name"], _ = marshalPlain(name)
	out, _ := marshalPlain(v)
	return out
}
