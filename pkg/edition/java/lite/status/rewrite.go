package status

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// WithPlayers returns body with players.online and players.max set, every other field
// kept as the backend wrote it (key order aside). A body that is not a JSON object, or
// a result over wire.MaxStatusJSON, leaves body as it is: a status answer is never made
// worse by the rewrite.
func WithPlayers(body []byte, online, maxPlayers int) []byte {
	out, ok := rewrite(body, func(doc, players map[string]json.RawMessage, _ bool) {
		players["online"] = json.RawMessage(strconv.Itoa(online))
		players["max"] = json.RawMessage(strconv.Itoa(maxPlayers))
	})
	if !ok {
		return body
	}
	return out
}

// Asleep rewrites a backend's status answer for a server that sleeps: motd as the
// description, players.online 0 and no sample; version, max players and favicon stay
// the backend's. ok is false for a body that is not a JSON object or a result over
// wire.MaxStatusJSON.
func Asleep(body []byte, motd json.RawMessage) ([]byte, bool) {
	return rewrite(body, func(doc, players map[string]json.RawMessage, hadPlayers bool) {
		if !hadPlayers {
			players["max"] = json.RawMessage("0")
		}
		players["online"] = json.RawMessage("0")
		delete(players, "sample")
		doc["description"] = motd
	})
}

// rewrite decodes body's top level and its players object, lets edit change both
// (hadPlayers: body had a players object), and encodes the result. ok is false when
// body is not a JSON object or the result is over wire.MaxStatusJSON.
func rewrite(body []byte, edit func(doc, players map[string]json.RawMessage, hadPlayers bool)) ([]byte, bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil || doc == nil {
		return nil, false
	}
	var players map[string]json.RawMessage
	raw, had := doc["players"]
	if !had || json.Unmarshal(raw, &players) != nil || players == nil {
		players, had = map[string]json.RawMessage{}, false
	}
	edit(doc, players, had)
	p, err := marshalPlain(players)
	if err != nil {
		return nil, false
	}
	doc["players"] = p
	out, err := marshalPlain(doc)
	if err != nil || len(out) > wire.MaxStatusJSON {
		return nil, false
	}
	return out, true
}

// marshalPlain encodes v without HTML escaping: the client is not a browser, and '<',
// '>' or '&' in a MOTD should stay readable in logs and captures.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode status json: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
