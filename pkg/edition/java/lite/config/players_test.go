package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

const playersConfig = `
config:
  lite:
    enabled: true
    players:
      deny: [Griefer, 069a79f444e94726a5befca90e38aaf5]
      denyFile: banned.json
      text: "Not you."
    routes:
      - host: a.example.com
        backend: 127.0.0.1:25566
        players:
          allow: Friend
          allowFile: whitelist.json
      - host: b.example.com
        backend: 127.0.0.1:25567
        players: {text: "Members only."}
`

func TestPlayersDecodeGlobalAndPerRoute(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"banned.json": `[]`, "whitelist.json": `{"global": {"allowlist": [{"name": "Alex"}]}}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _, err := config.Parse([]byte(playersConfig), filepath.Join(dir, "config.yml"))
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Lite.Players
	if g.Deny.Len() != 2 || g.Allow.Len() != 0 || g.DenyFile != filepath.Join(dir, "banned.json") || string(g.Text) != `{"text":"Not you."}` {
		t.Fatalf("global players = %+v", g)
	}
	a, b := cfg.Lite.Routes[0].Players, cfg.Lite.Routes[1].Players
	if a.Allow.Len() != 1 || a.AllowFile != filepath.Join(dir, "whitelist.json") || string(a.Text) != `{"text":"Not you."}` {
		t.Fatalf("route a players = %+v (want its lists and the global text)", a)
	}
	if !b.Empty() || string(b.Text) != `{"text":"Members only."}` {
		t.Fatalf("route b players = %+v (want no lists and its own text)", b)
	}
}

func TestPlayersRefusesBadEntriesAndFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"global": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := strings.NewReplacer("deny: [Griefer, 069a79f444e94726a5befca90e38aaf5]", `deny: [Griefer, "has a space in it", abcdefghijklmnopq]`,
		"denyFile: banned.json", "denyFile: broken.json", "allowFile: whitelist.json", "allowFile: missing.json").Replace(playersConfig)
	cfg, _, err := config.Parse([]byte(src), filepath.Join(dir, "config.yml"))
	var list config.ErrorList
	if cfg != nil || !errors.As(err, &list) || len(list) != 4 {
		t.Fatalf("Parse = %v, want 4 errors", err)
	}
	for i, want := range []string{"config.lite.players.deny[1]", "config.lite.players.deny[2]", "config.lite.players.denyFile", "config.lite.routes[0].players.allowFile"} {
		if list[i].Path != want {
			t.Errorf("error %d at %s, want %s: %v", i, list[i].Path, want, list[i])
		}
	}
}

// A discovered route may restrict its own players, but a label must not make the
// proxy read a file: allowFile and denyFile are refused (ErrNotGranted: the route is
// served without them, logged once by discovery) and its lists are kept; a refused
// allowFile leaves the route to its own allow list (Steve), never open to everyone.
func TestDiscoveredPlayersMayNotNameFiles(t *testing.T) {
	l := discoveryLite(t)
	r, _, err := l.DecodeDiscovered(config.Discovered{Origin: "kubernetes games/lobby", KeyPrefix: "gate.minekube.com/",
		Hosts: []string{"lobby.example.com"}, Backends: []string{"10.0.0.1:25565"},
		Settings: map[string]string{"players": `{allow: [Steve], deny: [Bob], allowFile: /etc/passwd, text: "Lobby members only"}`}})
	var list config.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !errors.Is(list[0], config.ErrNotGranted) || list[0].Path != "gate.minekube.com/players.allowFile" {
		t.Fatalf("err = %v, want allowFile refused as not granted", err)
	}
	if r.Players.Allow.Len() != 2 || r.Players.Deny.Len() != 1 || r.Players.AllowFile != "" || string(r.Players.Text) != `{"text":"Lobby members only"}` {
		t.Fatalf("route players = %+v, want the lists (allow: Steve and an entry matching no one) and text without the file", r.Players)
	}
}
