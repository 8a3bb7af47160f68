package status

import (
	"encoding/json"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"plain", "Hello", `{"text":"Hello"}`},
		{"empty", "", `{"text":""}`},
		{"quotes and backslash", `say "hi" \o/`, `{"text":"say \"hi\" \\o/"}`},
		{"newline and tab", "line1\nline2\tend", `{"text":"line1\nline2\tend"}`},
		{"section codes kept", "§aGreen §lbold", `{"text":"§aGreen §lbold"}`},
		{"html characters readable", "<3 & >", `{"text":"<3 & >"}`},
		{"control character", "a\x01b", `{"text":"a\u0001b"}`},
		{"invalid utf8 replaced", "a\xffb", `{"text":"a\ufffdb"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			if string(got) != tc.want {
				t.Errorf("Text(%q) = %s, want %s", tc.in, got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("Text(%q) is not valid JSON: %s", tc.in, got)
			}
		})
	}
}

func TestDisconnectText(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  json.RawMessage
		def  string
		want string
	}{
		{"configured message wins", json.RawMessage(`{"text":"Maintenance","color":"gold"}`), "unused", `{"text":"Maintenance","color":"gold"}`},
		{"nil uses red default", nil, "No server for this address", `{"text":"No server for this address","color":"red"}`},
		{"empty uses red default", json.RawMessage{}, "All servers are down", `{"text":"All servers are down","color":"red"}`},
		{"legacy string wrapped", json.RawMessage(`§cGo away`), "unused", `{"text":"§cGo away"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DisconnectText(tc.msg, tc.def); string(got) != tc.want {
				t.Errorf("DisconnectText = %s, want %s", got, tc.want)
			}
		})
	}
}
