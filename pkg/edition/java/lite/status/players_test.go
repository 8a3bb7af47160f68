package status

import (
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestWithPlayers(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"counts replaced, sample kept",
			`{"version":{"name":"1.21.4","protocol":769},"players":{"max":20,"online":3,"sample":[{"name":"Steve","id":"00000000-0000-0000-0000-000000000001"}]},"description":{"text":"hi"}}`,
			`{"description":{"text":"hi"},"players":{"max":120,"online":42,"sample":[{"name":"Steve","id":"00000000-0000-0000-0000-000000000001"}]},"version":{"name":"1.21.4","protocol":769}}`},
		{"players missing", `{"description":"x"}`, `{"description":"x","players":{"max":120,"online":42}}`},
		{"players not an object", `{"players":"many"}`, `{"players":{"max":120,"online":42}}`},
		{"players null", `{"players":null}`, `{"players":{"max":120,"online":42}}`},
		{"motd markup not escaped", `{"description":{"text":"<b> & </b>"}}`, `{"description":{"text":"<b> & </b>"},"players":{"max":120,"online":42}}`},
		{"not json", `not json`, `not json`},
		{"not an object", `[1,2]`, `[1,2]`},
		{"json null", `null`, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(WithPlayers([]byte(tc.body), 42, 120)); got != tc.want {
				t.Fatalf("WithPlayers(%s)\n got %s\nwant %s", tc.body, got, tc.want)
			}
		})
	}
}

// A rewrite that would push the response over the protocol's cap keeps the original.
func TestWithPlayersKeepsBodyOverCap(t *testing.T) {
	pad := strings.Repeat("a", wire.MaxStatusJSON-len(`{"description":"","players":{}}`))
	body := `{"description":"` + pad + `","players":{}}`
	if len(body) != wire.MaxStatusJSON {
		t.Fatalf("setup: body is %d bytes", len(body))
	}
	if got := string(WithPlayers([]byte(body), 1, 2)); got != body {
		t.Fatalf("body changed although the result would exceed %d bytes", wire.MaxStatusJSON)
	}
}
