package status

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// ErrNotStatus is returned by ParseReport when the input is not a JSON object.
var ErrNotStatus = errors.New("status response is not a JSON object")

// maxComponentDepth bounds how deep the description flattening follows nested components;
// the JSON decoder allows far deeper nesting than any real MOTD uses.
const maxComponentDepth = 32

// Report is what a backend said about itself, for load-aware strategies and legacy replies.
type Report struct {
	VersionName string
	Protocol    int32
	Online, Max int
	HasPlayers  bool   // players object present and plausible (max > 0, 0 <= online)
	MOTD        string // description flattened to plain text (keep § codes from legacy strings; flatten components: text, extra, arrays, translate -> the key)
}

// rawStatus holds the fields ParseReport reads, each kept raw so that one malformed field
// (servers and plugins get types wrong) costs only that field, not the whole report.
type rawStatus struct {
	Version     json.RawMessage `json:"version"`
	Players     json.RawMessage `json:"players"`
	Description json.RawMessage `json:"description"`
}

type rawVersion struct {
	Name     string          `json:"name"`
	Protocol json.RawMessage `json:"protocol"`
}

type rawPlayers struct {
	Max    *json.Number `json:"max"`
	Online *json.Number `json:"online"`
}

// ParseReport decodes the parts of a Status Response JSON it needs; unknown fields are ignored.
// Only input that is not a JSON object is an error; a field of the wrong type is left zero.
func ParseReport(data []byte) (Report, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return Report{}, fmt.Errorf("parse status report: %w", ErrNotStatus)
	}
	var raw rawStatus
	if err := json.Unmarshal(data, &raw); err != nil {
		return Report{}, fmt.Errorf("parse status report: %w", err)
	}
	var r Report
	var v rawVersion
	if json.Unmarshal(raw.Version, &v) == nil {
		r.VersionName = v.Name
		var n json.Number
		if json.Unmarshal(v.Protocol, &n) == nil {
			if p, ok := toInt(n, math.MinInt32, math.MaxInt32); ok {
				r.Protocol = int32(p)
			}
		}
	}
	r.Online, r.Max, r.HasPlayers = parsePlayers(raw.Players)
	if len(raw.Description) > 0 {
		var d any
		if json.Unmarshal(raw.Description, &d) == nil {
			var sb strings.Builder
			flatten(&sb, d, 0)
			r.MOTD = sb.String()
		}
	}
	return r, nil
}

// parsePlayers reads the players object. Counts are kept even when implausible, but only a
// present object with max > 0 and online >= 0 sets ok: load-aware strategies must treat
// anything else as "no data", not as "empty server".
func parsePlayers(b json.RawMessage) (online, maxPlayers int, ok bool) {
	var p rawPlayers
	if len(b) == 0 || json.Unmarshal(b, &p) != nil {
		return 0, 0, false
	}
	var hasOnline, hasMax bool
	if p.Online != nil {
		online, hasOnline = toInt(*p.Online, math.MinInt32, math.MaxInt32)
	}
	if p.Max != nil {
		maxPlayers, hasMax = toInt(*p.Max, math.MinInt32, math.MaxInt32)
	}
	return online, maxPlayers, hasOnline && hasMax && maxPlayers > 0 && online >= 0
}

// toInt accepts integers and integral floats (some encoders write 20.0) within [lo, hi].
func toInt(n json.Number, lo, hi int64) (int, bool) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		if i < lo || i > hi {
			return 0, false
		}
		return int(i), true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, false
	}
	return int(f), true
}

// flatten appends the plain text of a decoded text component: strings as they are (§ codes
// kept), objects as their content (text, else translate key, else keybind) followed by extra,
// arrays in order, and other primitives in their JSON spelling as the client shows them.
func flatten(sb *strings.Builder, v any, depth int) {
	if depth > maxComponentDepth {
		return
	}
	switch c := v.(type) {
	case string:
		sb.WriteString(c)
	case []any:
		for _, e := range c {
			flatten(sb, e, depth+1)
		}
	case map[string]any:
		flattenObject(sb, c, depth)
	case float64:
		sb.WriteString(strconv.FormatFloat(c, 'f', -1, 64))
	case bool:
		sb.WriteString(strconv.FormatBool(c))
	}
}

func flattenObject(sb *strings.Builder, c map[string]any, depth int) {
	switch {
	case c["text"] != nil:
		flatten(sb, c["text"], depth+1)
	case c["translate"] != nil:
		flatten(sb, c["translate"], depth+1)
	case c["keybind"] != nil:
		flatten(sb, c["keybind"], depth+1)
	}
	if extra, ok := c["extra"].([]any); ok {
		for _, e := range extra {
			flatten(sb, e, depth+1)
		}
	}
}

// StrategyReport is what backend selection learns from a Status Response body and
// the time it took (rtt): the parsed report, or only rtt for a body that is not one.
func StrategyReport(body []byte, rtt time.Duration) strategy.Report {
	r := strategy.Report{RTT: rtt}
	rep, err := ParseReport(body)
	if err != nil {
		return r
	}
	r.Online, r.Max, r.HasPlayers = rep.Online, rep.Max, rep.HasPlayers
	r.Version, r.Protocol, r.MOTD = rep.VersionName, rep.Protocol, rep.MOTD
	return r
}
