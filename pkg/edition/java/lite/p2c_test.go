package lite_test

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// loadServer is a fake Minecraft server whose status reports the players it
// really holds (or a fixed count), so that proxies see each other's
// placements through it, as they do with real servers.
type loadServer struct {
	*backend
	max  int
	motd string
	// fixedOnline, when >= 0, is reported instead of the real count.
	fixedOnline atomic.Int64
	report      func() string
}

func newLoadServer(t testing.TB, maxPlayers int, motd string) *loadServer {
	t.Helper()
	s := &loadServer{backend: newBackend(t, ""), max: maxPlayers, motd: motd}
	s.fixedOnline.Store(-1)
	report := func() string {
		online := s.fixedOnline.Load()
		if online < 0 {
			online = s.Active()
		}
		return fmt.Sprintf(`{"version":{"name":"1.20.4","protocol":765},"players":{"max":%d,"online":%d,"sample":[{"name":"Alex","id":"00000000-0000-0000-0000-000000000001"}]},"description":{"text":%q}}`,
			s.max, online, s.motd)
	}
	s.report = report
	s.SetStatusFunc(report)
	return s
}

// statusFunc returns the server's own status answer, to wrap.
func (s *loadServer) statusFunc() func() string { return s.report }

// p2cConfig is a p2c route over backends whose reports refresh every 100ms; extra
// are more keys of the route.
func p2cConfig(backends []string, extra ...string) string {
	return oneRoute("*", backends...).with("strategy: p2c").with(extra...).
		withLite("healthCheck: {interval: 100ms, timeout: 90ms}").String()
}

// waitReports waits until p has a report from every backend.
func waitReports(t *testing.T, p *proxy, n int) {
	t.Helper()
	waitFor(t, "a report from every backend", 5*time.Second, func() bool {
		got := 0
		for _, s := range p.Manager().Snapshot() {
			if s.Report != nil {
				got++
			}
		}
		return got >= n
	})
}

func TestP2CKeepsNewPlayersOffBackendsWithoutRoom(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) (bad *loadServer, extra []string, item string)
	}{
		{"reports a full server", func(t *testing.T) (*loadServer, []string, string) {
			s := newLoadServer(t, 20, "Lobby")
			s.fixedOnline.Store(20)
			return s, nil, s.addr
		}},
		{"MOTD says maintenance", func(t *testing.T) (*loadServer, []string, string) {
			s := newLoadServer(t, 100, "§cServer under MAINTENANCE")
			return s, []string{"drainMotd: '(?i)maintenance'"}, s.addr
		}},
		{"capacity override below the reported max", func(t *testing.T) (*loadServer, []string, string) {
			s := newLoadServer(t, 500, "Lobby")
			s.fixedOnline.Store(95)
			return s, nil, fmt.Sprintf("{address: '%s', capacity: 100}", s.addr)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := newLoadServer(t, 100, "Lobby"), newLoadServer(t, 100, "Lobby")
			bad, extra, item := tt.setup(t)
			p := startProxy(t, p2cConfig([]string{a.addr, item, b.addr}, extra...))
			waitReports(t, p, 3)
			const players = 30
			for range players {
				cl := dialProxy(t, p.addr)
				cl.login("lobby.example.com")
			}
			if n := bad.Logins(); n != 0 {
				t.Fatalf("backend without room got %d of %d players (others: %d, %d)", n, players, a.Logins(), b.Logins())
			}
			if got := a.Logins() + b.Logins(); got != players {
				t.Fatalf("backends with room got %d players, want %d", got, players)
			}
		})
	}
}

func TestTwoProxiesShareThreeBackends(t *testing.T) {
	servers := []*loadServer{newLoadServer(t, 100, "Lobby"), newLoadServer(t, 100, "Lobby"), newLoadServer(t, 100, "Lobby")}
	cfg := p2cConfig(addrs(servers...))
	proxies := []*proxy{startProxy(t, cfg, proxyOpts{seed: 1}), startProxy(t, cfg, proxyOpts{seed: 2})}
	for _, p := range proxies {
		waitReports(t, p, len(servers))
	}
	// An L4 balancer in front: connections alternate between the replicas,
	// and every player stays connected.
	const players = 60
	for i := range players {
		cl := dialProxy(t, proxies[i%2].addr)
		cl.login("lobby.example.com")
	}
	fair := float64(players) / float64(len(servers))
	t.Logf("players per backend: %d %d %d", servers[0].Active(), servers[1].Active(), servers[2].Active())
	for _, s := range servers {
		if got := float64(s.Active()); got/fair > 1.15 {
			t.Fatalf("backend %s holds %v of %d players (fair %v): max/fair %.2f > 1.15; all: %d %d %d", s.addr, got, players, fair,
				got/fair, servers[0].Active(), servers[1].Active(), servers[2].Active())
		}
	}
}

func TestStatusAggregatesHealthyBackends(t *testing.T) {
	servers := []*loadServer{newLoadServer(t, 100, "Lobby"), newLoadServer(t, 50, "Lobby"), newLoadServer(t, 500, "Lobby")}
	for i, online := range []int64{5, 7, 9} {
		servers[i].fixedOnline.Store(online)
	}
	p := startProxy(t, p2cConfig([]string{servers[0].addr, servers[1].addr, fmt.Sprintf("{address: '%s', capacity: 150}", servers[2].addr)},
		"status: aggregate", "cachePingTTL: -1"))
	waitReports(t, p, 3)
	body, err := dialProxy(t, p.addr).status(765, "lobby.example.com")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Players struct {
			Online, Max int
			Sample      []struct{ Name string }
		}
		Description struct{ Text string }
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("status %s: %v", body, err)
	}
	if doc.Players.Online != 21 || doc.Players.Max != 300 || len(doc.Players.Sample) != 1 || doc.Description.Text != "Lobby" {
		t.Fatalf("status %s: want 21 of 300 players (capacity 150 over the reported 500), the sample and the MOTD kept", body)
	}
}

func TestP2CRouteProbesForReportsWithoutHealthChecks(t *testing.T) {
	s := newLoadServer(t, 100, "Lobby")
	p := startProxy(t, p2cConfig([]string{s.addr}))
	first := time.Now()
	waitReports(t, p, 1)
	var at time.Time
	for _, st := range p.Manager().Snapshot() {
		at = st.ReportAt
	}
	// Reports keep coming at the health interval (100ms) though checks are off.
	waitFor(t, "a second report", 5*time.Second, func() bool {
		for _, st := range p.Manager().Snapshot() {
			if st.ReportAt.After(at) {
				return true
			}
		}
		return false
	})
	if st := p.Manager().Snapshot()[0]; st.Health != strategy.HealthHealthy || time.Since(first) > 5*time.Second {
		t.Fatalf("backend state %+v", st)
	}
}
