package config

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxTextJSON caps a text component's JSON: the protocol caps a status
// response string at 32767 characters.
const maxTextJSON = 32767

// textComponent converts a YAML value to text component JSON: a string is
// legacy text and becomes {"text": "..."}, unless it is itself JSON object
// text ({...}), which is passed on; a mapping or list is a component written
// in YAML and becomes the same JSON. Null yields nil (unset). Trailing
// newlines of block strings are dropped.
func (d *decoder) textComponent(e entry) (json.RawMessage, bool) {
	n := resolve(e.val)
	if isNull(n) {
		return nil, true
	}
	var out []byte
	switch n.Kind {
	case yaml.ScalarNode:
		if !d.spendText(len(n.Value), e) {
			return nil, false
		}
		s := n.Value
		if trimmed := strings.TrimSpace(s); n.ShortTag() == "!!str" && strings.HasPrefix(trimmed, "{") {
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(trimmed)); err != nil {
				d.invalid(e, "invalid JSON text component: %v", err)
				return nil, false
			}
			out = buf.Bytes()
			break
		}
		out = legacyText(strings.TrimRight(s, "\n"))
	case yaml.MappingNode, yaml.SequenceNode:
		w := &jsonWriter{d: d, at: e}
		if err := w.node(n, 0); err != "" {
			if !d.budget.exhausted {
				d.invalid(e, "text component: %s", err)
			}
			return nil, false
		}
		out = w.buf.Bytes()
	default:
		d.invalid(e, "want a string or a text component, got %s", describe(n))
		return nil, false
	}
	if len(out) > maxTextJSON {
		d.invalid(e, "text component is %d bytes of JSON (limit %d)", len(out), maxTextJSON)
		return nil, false
	}
	return json.RawMessage(out), true
}

// legacyText wraps s as {"text": s} without HTML escaping, so that '§' codes
// and '<' stay readable in the JSON.
func legacyText(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Text string `json:"text"`
	}{s}) // encoding a string field cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// jsonWriter renders a YAML tree as compact JSON, keeping key order, within
// depth and size limits (aliases can make a small file expand hugely). Every
// node and text it reads is charged to the decoder's budget, because the same
// aliased component may be rendered for every route.
type jsonWriter struct {
	buf bytes.Buffer
	d   *decoder
	at  entry // the component, for the budget error
}

// errSpent is returned once the budget ran out; the decoder reported it.
const errSpent = "decoding budget spent"

func (w *jsonWriter) node(n *yaml.Node, depth int) string {
	if n == nil {
		return "empty alias"
	}
	if depth > maxDepth {
		return "nested too deeply"
	}
	if w.buf.Len() > maxTextJSON {
		return "larger than " + strconv.Itoa(maxTextJSON) + " bytes"
	}
	if !w.d.spend(1, w.at) || !w.d.spendText(len(n.Value), w.at) {
		return errSpent
	}
	switch n.Kind {
	case yaml.AliasNode:
		return w.node(n.Alias, depth+1)
	case yaml.ScalarNode:
		return w.scalar(n)
	case yaml.SequenceNode:
		w.buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err := w.node(c, depth+1); err != "" {
				return err
			}
		}
		w.buf.WriteByte(']')
		return ""
	case yaml.MappingNode:
		return w.mapping(n, depth)
	}
	return "unsupported YAML node"
}

func (w *jsonWriter) mapping(n *yaml.Node, depth int) string {
	w.buf.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			return "keys must be plain strings"
		}
		if !w.d.spendText(len(k.Value), w.at) {
			return errSpent
		}
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.str(k.Value)
		w.buf.WriteByte(':')
		if err := w.node(n.Content[i+1], depth+1); err != "" {
			return err
		}
	}
	w.buf.WriteByte('}')
	return ""
}

func (w *jsonWriter) scalar(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!null":
		w.buf.WriteString("null")
	case "!!bool":
		var b bool
		if n.Decode(&b) != nil {
			return "invalid boolean " + strconv.Quote(n.Value)
		}
		w.buf.WriteString(strconv.FormatBool(b))
	case "!!int", "!!float":
		var f float64
		if n.Decode(&f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "number " + strconv.Quote(n.Value) + " has no JSON form"
		}
		w.buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		w.str(n.Value)
	}
	return ""
}

func (w *jsonWriter) str(s string) {
	w.buf.Write(legacyQuote(s))
}

// legacyQuote is a JSON string literal without HTML escaping.
func legacyQuote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}
