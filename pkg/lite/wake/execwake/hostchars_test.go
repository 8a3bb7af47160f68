package execwake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/lite/wake"
)

// Regression (issue 30, item 11): the server address a player typed reached
// GATE_WAKE_SERVER_ADDRESS byte for byte, newlines and quotes included.
func TestServerAddressKeepsOnlyHostCharacters(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"lobby.example.com", "lobby.example.com"},
		{"*.example.com", "*.example.com"},
		{"a\nb\"c';$(id)`x`.example.com", "abcidx.example.com"},
		{strings.Repeat("a", 300), strings.Repeat("a", maxHostChars)},
	} {
		if got := hostChars(tc.in); got != tc.want {
			t.Errorf("hostChars(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The same, as a real command sees it.
func TestCommandSeesOnlyHostCharactersOfTheServerAddress(t *testing.T) {
	out := filepath.Join(t.TempDir(), "seen")
	cmd := script(t, "wake.sh", `printf '%s' "$GATE_WAKE_SERVER_ADDRESS" > "$OUT"`+"\n")
	tg, err := New(wake.Spec{Kind: wake.KindExec, Command: []string{cmd}}, Options{Env: []string{"OUT=" + out}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Wake(context.Background(), wake.Request{ServerAddress: "lobby\n\"x\".example.com"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "lobbyx.example.com" {
		t.Fatalf("the command saw %q", b)
	}
}
