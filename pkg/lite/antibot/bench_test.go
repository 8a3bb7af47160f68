package antibot_test

import (
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/antibot"
	"go.minekube.com/gate/pkg/lite/players"
)

// BenchmarkCheck is the per-login cost of the checks: none configured (what every
// login pays), and all of them (valid names, a per-name rate globally and on the
// route, a session cap given back by End, attack mode counting the login) over
// 1000 names from 1000 addresses.
func BenchmarkCheck(b *testing.B) {
	names := make([]*players.Player, 1000)
	for i := range names {
		names[i] = &players.Player{Name: fmt.Sprintf("Player%d", i)}
	}
	all := antibot.Settings{ValidNames: true, LoginRate: antibot.Rate{Ops: 1e9, Burst: 1 << 30}, MaxSessionsPerName: 1}
	attack := antibot.AttackMode{Above: 1e9, Window: time.Second, Calm: time.Second}
	for _, bc := range []struct {
		name        string
		global, own antibot.Settings
		attack      antibot.AttackMode
	}{
		{"none", antibot.Settings{}, antibot.Settings{}, antibot.AttackMode{}},
		{"all", all, all, attack},
	} {
		b.Run(bc.name, func(b *testing.B) {
			clock := time.Unix(0, 0)
			g := antibot.New(antibot.Options{Now: func() time.Time { return clock }})
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p := names[i%len(names)]
				v := g.Check(antibot.Login{Player: p, Addr: addr(i % len(names)), Route: "play.example.com",
					Global: &bc.global, Own: &bc.own, Attack: &bc.attack})
				if v.Reason != "" {
					b.Fatalf("refused: %s", v.Reason)
				}
				g.End(p)
				i++
			}
		})
	}
}
