package status

import "encoding/json"

// textComponent is the smallest JSON text component: plain text with an optional colour.
// § formatting codes inside Text are rendered by the client, so legacy strings need no parsing.
type textComponent struct {
	Text  string `json:"text"`
	Color string `json:"color,omitempty"`
}

// Text converts legacy text (may contain § codes) into a JSON text component ({"text":"..."}).
// Invalid UTF-8 is replaced with U+FFFD so the result is always valid JSON.
func Text(s string) json.RawMessage {
	return marshalText(textComponent{Text: s})
}

// DisconnectText returns msg when it is set, otherwise def as red text. A msg that is not valid
// JSON (a legacy string that skipped conversion) is wrapped with Text rather than sent raw,
// because the client would otherwise show a parse error instead of the message.
func DisconnectText(msg json.RawMessage, def string) json.RawMessage {
	if len(msg) == 0 {
		return marshalText(textComponent{Text: def, Color: "red"})
	}
	if !json.Valid(msg) {
		return Text(string(msg))
	}
	return msg
}

// marshalText encodes a text component (see marshalPlain for why without HTML escaping).
func marshalText(t textComponent) json.RawMessage {
	// Encoding a struct of two strings cannot fail.
	out, _ := marshalPlain(t)
	return out
}
