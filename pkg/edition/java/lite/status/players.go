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
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil || doc == nil {
		return body
	}
	var players map[string]json.RawMessage
	if raw, ok := doc["players"]; !ok || json.Unmarshal(raw, &players) != nil || players == nil {
		players = map[string]json.RawMessage{}
	}
	players["online"] = json.RawMessage(strconv.Itoa(online))
	players["max"] = json.RawMessage(strconv.Itoa(maxPlayers))
	p, err := marshalPlain(players)
	if err != nil {
		return body
	}
	doc["players"] = p
	out, err := marshalPlain(doc)
	if err != nil || len(out) > wire.MaxStatusJSON {
		return body
	}
	return out
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
