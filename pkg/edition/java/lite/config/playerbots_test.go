package config_test

import (
	"errors"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/antibot"
)

const botsConfig = `
config:
  lite:
    enabled: true
    players:
      loginRate: {ops: 0.3, burst: 3}
      maxSessionsPerName: 1
      sessionsText: "Already on."
      attackMode: {above: 50, text: "Reconnect, please."}
    routes:
      - host: a.example.com
        backend: 127.0.0.1:25566
        players: {validNames: true, maxSessionsPerName: 2}
`

func TestBotSettingsDecodeGlobalAndPerRoute(t *testing.T) {
	cfg, _, err := config.Parse([]byte(botsConfig), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Lite.Players
	if g.Bots.LoginRate != (antibot.Rate{Ops: 0.3, Burst: 3}) || g.Bots.MaxSessionsPerName != 1 || g.Bots.ValidNames {
		t.Fatalf("global bots = %+v", g.Bots)
	}
	want := antibot.AttackMode{Above: 50, Window: antibot.DefaultWindow, Calm: antibot.DefaultCalm, Text: []byte(`{"text":"Reconnect, please."}`)}
	if a := g.AttackMode; a.Above != want.Above || a.Window != want.Window || a.Calm != want.Calm || string(a.Text) != string(want.Text) {
		t.Fatalf("attackMode = %+v, want %+v", a, want)
	}
	r := cfg.Lite.Routes[0].Players.Bots
	if !r.ValidNames || r.MaxSessionsPerName != 2 || r.LoginRate.On() || string(r.Texts.Sessions) != `{"text":"Already on."}` {
		t.Fatalf("route bots = %+v (want its own checks and the global texts)", r)
	}
}

func TestBotSettingsErrors(t *testing.T) {
	src := `
config:
  lite:
    enabled: true
    players:
      loginRate: {ops: 0}
      attackMode: {above: 10, window: 0s}
    routes:
      - host: a.example.com
        backend: 127.0.0.1:25566
        players: {attackMode: {above: 5}, maxSessionsPerName: -1}
`
	_, _, err := config.Parse([]byte(src), "config.yml")
	var list config.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Parse = %v, want errors", err)
	}
	want := []string{"config.lite.players.loginRate", "config.lite.players.attackMode.window",
		"config.lite.routes[0].players.attackMode", "config.lite.routes[0].players.maxSessionsPerName"}
	if len(list) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(list), len(want), err)
	}
	for i, p := range want {
		if list[i].Path != p {
			t.Errorf("error %d at %s, want %s: %v", i, list[i].Path, p, list[i])
		}
	}
}

// A label may tighten its own route (a route's checks add to the global ones) but
// may not set attack mode, which counts every route's logins.
func TestDiscoveredRouteMayTightenButNotSetAttackMode(t *testing.T) {
	l := discoveryLite(t)
	r, _, err := l.DecodeDiscovered(config.Discovered{Origin: "kubernetes games/lobby", KeyPrefix: "gate.minekube.com/",
		Hosts: []string{"lobby.example.com"}, Backends: []string{"10.0.0.1:25565"},
		Settings: map[string]string{"players": `{validNames: true, loginRate: {ops: 1, burst: 2}, attackMode: {above: 1}}`}})
	var list config.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !errors.Is(list[0], config.ErrNotGranted) || list[0].Path != "gate.minekube.com/players.attackMode" {
		t.Fatalf("err = %v, want attackMode refused as not granted", err)
	}
	if b := r.Players.Bots; !b.ValidNames || b.LoginRate != (antibot.Rate{Ops: 1, Burst: 2}) || r.Players.AttackMode.On() {
		t.Fatalf("route players = %+v", r.Players)
	}
}
