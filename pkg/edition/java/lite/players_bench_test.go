package lite

import (
	"github.com/go-logr/logr"

	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/players"
)

// BenchmarkIdentity is what knowing the player adds to a login before it dials:
// parse the Login Start already in the buffer, ask the access lists (none, or a
// 1,000-name deny list and a route allow list). BenchmarkLoginSetup has the whole
// login for comparison.
func BenchmarkIdentity(b *testing.B) {
	pre := wire.AppendLoginStart(nil, 765, wire.LoginStart{Name: "SomePlayer", UUID: [16]byte{1, 2, 3}, HasUUID: true}, nil)
	deny := make([]players.Entry, 1000)
	for i := range deny {
		deny[i] = players.Entry{Name: "banned" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))}
	}
	lists := []struct {
		name          string
		global, route players.Rules
	}{
		{"no lists", players.Rules{}, players.Rules{}},
		{"deny 1000 and allow 3", players.Rules{Deny: players.NewList(deny)},
			players.Rules{Allow: players.NewList([]players.Entry{{Name: "Steve"}, {Name: "Alex"}, {Name: "someplayer"}})}},
	}
	g := players.NewGuard(logr.Discard())
	defer g.Close()
	for _, tc := range lists {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ls, _, err := wire.ParseLoginStart(pre, 765)
				if err != nil {
					b.Fatal(err)
				}
				p := &players.Player{Name: ls.Name, UUID: ls.UUID}
				if !g.Allows("lobby.example.com", *p, &tc.global, &tc.route) {
					b.Fatal("refused")
				}
			}
		})
	}
}
