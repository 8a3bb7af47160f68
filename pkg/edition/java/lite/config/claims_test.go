package config

import (
	"reflect"
	"strings"
	"testing"
)

const claimsSrc = `config:
  lite:
    enabled: true
    routes:
      - host: '*'
        backend: 10.0.0.1:25565
    discovery:
      kubernetes:
        enabled: true
        hosts:
          games: ['*.example.com']
          team-*: play.team.example.com
      docker:
        hosts: {}
`

func TestHostClaimsDecodeAndAllow(t *testing.T) {
	cfg, warns, err := Parse([]byte(claimsSrc), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := HostClaims{{Owner: "games", Hosts: []string{"*.example.com"}}, {Owner: "team-*", Hosts: []string{"play.team.example.com"}}}
	if got := cfg.Lite.Discovery.Claims.Kubernetes; !reflect.DeepEqual(got, want) {
		t.Fatalf("kubernetes claims = %+v", got)
	}
	k := cfg.Lite.Discovery.Claims.For(SourceKubernetes)
	for _, c := range []struct {
		owner, host string
		want        bool
	}{
		{"games", "lobby.example.com", true},
		{"games", "*.games.example.com", true},
		{"games", "*", false},
		{"team-a", "play.team.example.com", true},
		{"team-a", "lobby.example.com", false},
		{"aaa-tenant", "lobby.example.com", false},
	} {
		if got := k.Allows(c.owner, c.host); got != c.want {
			t.Errorf("%s claims %s: allowed %v, want %v", c.owner, c.host, got, c.want)
		}
	}
	if d := cfg.Lite.Discovery.Claims.Docker; d == nil || d.Allows("mc", "a.example.com") {
		t.Fatalf("an empty docker.hosts must allow nothing: %+v", d)
	}
	if (Claims{}).For(SourceDocker).Allows("mc", "*") != true {
		t.Fatal("no hosts key must allow everything")
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0].String(), `config.yml:5: config.lite.routes[0].host: host "*" catches every host`) {
		t.Fatalf("warnings = %q", warns)
	}
}

func TestHostClaimsErrorsNameTheLine(t *testing.T) {
	src := strings.Replace(claimsSrc, "team-*: play.team.example.com", "team-*: ['play.team.example.com:25565', {a: b}]", 1)
	_, _, err := Parse([]byte(src), "config.yml")
	if err == nil || !strings.Contains(err.Error(), "config.yml:12: config.lite.discovery.kubernetes.hosts.team-*") {
		t.Fatalf("err = %v", err)
	}
}
