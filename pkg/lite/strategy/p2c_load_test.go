package strategy

import (
	"testing"
	"time"
)

func TestLoadOf(t *testing.T) {
	const stale = 30 * time.Second
	report := func(online, maxPlayers int, age time.Duration) Candidate {
		return Candidate{HasReport: true, HasPlayers: true, Online: online, Max: maxPlayers, ReportAge: age}
	}
	with := func(c Candidate, f func(*Candidate)) Candidate { f(&c); return c }
	tests := []struct {
		name  string
		c     Candidate
		peers int64
		want  int64 // load units
	}{
		{"fresh report", report(50, 100, time.Second), 1, 500_000},
		{"empty server", report(0, 100, 0), 1, 0},
		{"over capacity is capped", report(900, 100, 0), 1, loadCap},
		{"no report is half full", Candidate{}, 1, loadNeutral},
		{"report without players object is half full", Candidate{HasReport: true, Online: 0, Max: 0}, 1, loadNeutral},
		{"report at staleAfter still counts whole", report(0, 100, stale), 1, 0},
		{"report at 2x staleAfter is halfway to neutral", report(0, 100, 2*stale), 1, 250_000},
		{"report at 3x staleAfter is neutral", report(0, 100, 3*stale), 1, loadNeutral},
		{"stale full report fades down to neutral", report(100, 100, 2*stale), 1, 750_000},
		{"placements since the report are charged", with(report(10, 100, 0), func(c *Candidate) { c.Placed = 5 }), 1, 150_000},
		{"each placement charged per peer", with(report(10, 100, 0), func(c *Candidate) { c.Placed = 5 }), 4, 300_000},
		{"own players are a floor", with(report(10, 100, 0), func(c *Candidate) { c.Active, c.ActiveAtReport = 30, 10 }), 1, 300_000},
		{"always-zero report is replaced by own players times peers", with(report(0, 100, 0), func(c *Candidate) { c.Active, c.ActiveAtReport = 8, 8 }), 16, 1_280_000},
		{"always-zero report, one replica: own players", with(report(0, 100, 0), func(c *Candidate) { c.Active, c.ActiveAtReport = 8, 8 }), 1, 80_000},
		{"a count that never moves is not the load", with(report(40, 100, 0), func(c *Candidate) { c.Active, c.Stuck = 5, true }), 4, 200_000},
		{"a few logins in flight are tolerated", with(report(0, 100, 0), func(c *Candidate) { c.Active, c.ActiveAtReport = 2, 2 }), 1, 20_000},
		{"capacity override beats the reported max", with(report(95, 500, 0), func(c *Candidate) { c.Capacity = 100 }), 1, 950_000},
		{"capacity override scales the floor without a report", Candidate{Capacity: 20, Active: 15}, 1, 750_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := loadOf(&tt.c, stale, tt.peers, nominalCapacityDefault); got != tt.want {
				t.Fatalf("loadOf = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEstimatePeers(t *testing.T) {
	const stale = 30 * time.Second
	c := func(online int, own int64, age time.Duration) Candidate {
		return Candidate{HasReport: true, HasPlayers: true, Online: online, Max: 100, ActiveAtReport: own, ReportAge: age}
	}
	tests := []struct {
		name  string
		cands []Candidate
		want  int64
	}{
		{"nothing placed yet: only this replica is known", []Candidate{c(40, 0, 0), c(40, 0, 0)}, 1},
		{"a quarter of the players: four replicas", []Candidate{c(40, 10, 0), c(40, 10, 0)}, 4},
		{"rounds to the nearest", []Candidate{c(35, 10, 0)}, 4},
		{"stale reports are left out", []Candidate{c(40, 10, 0), c(400, 10, 2*stale)}, 4},
		{"implausible reports are left out", []Candidate{c(40, 10, 0), c(0, 10, 0)}, 4},
		{"never below one", []Candidate{c(5, 10, 0)}, 1},
		{"capped", []Candidate{c(10000, 1, 0)}, maxPeers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := estimatePeers(tt.cands, stale); got != tt.want {
				t.Fatalf("estimatePeers = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestRampWeight(t *testing.T) {
	tests := []struct {
		name      string
		warm      time.Duration
		slowStart time.Duration
		want      int64
	}{
		{"settled", Settled, DefaultSlowStart, 1000},
		{"just joined: the floor", 0, DefaultSlowStart, 100},
		{"a few seconds in: still the floor", 3 * time.Second, DefaultSlowStart, 100},
		{"halfway", 30 * time.Second, DefaultSlowStart, 500},
		{"done", DefaultSlowStart, DefaultSlowStart, 1000},
		{"slow start off", 0, -1, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rampWeight(tt.warm, tt.slowStart); got != tt.want {
				t.Fatalf("rampWeight = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestP2CConfigDefaults(t *testing.T) {
	got := P2CConfig{Saturation: 1.5, Peers: -2}.WithDefaults()
	want := P2CConfig{LatencyWeight: DefaultLatencyWeight, StaleAfter: DefaultStaleAfter, Saturation: DefaultSaturation, SlowStart: DefaultSlowStart}
	if got != want {
		t.Fatalf("WithDefaults = %+v, want %+v", got, want)
	}
}

// p2c scores the load a backend would have with the player, and least-loaded
// ranks by it: one player is 2% of a 50-slot backend and 0.025% of a 4000-slot
// one. On the load before it, the small backend at 10.0% beat the big one at
// 10.5% and took a sixth player where its share was five (32 replicas on
// 4000/400/100/100/50 reached max/fair 1.30 in the simulator's default world).
func TestLoadIsScoredWithThePlayer(t *testing.T) {
	for _, name := range []Name{P2C, LeastLoaded} {
		clk := newClock()
		m := NewManager(Options{Seed: 42, Now: clk.Now})
		// One replica, so least-loaded ranks rather than following the replicas' plan.
		m.SetRoutes([]Route{{Key: "r", Strategy: name, Backends: []string{"big", "small"}, P2C: P2CConfig{Peers: 1}}})
		m.ObserveStatus("big", Report{RTT: 20 * time.Millisecond, Online: 420, Max: 4000, HasPlayers: true}, nil)
		m.ObserveStatus("small", Report{RTT: 20 * time.Millisecond, Online: 5, Max: 50, HasPlayers: true}, nil)
		small := 0
		for range 100 {
			if m.Order("r", []string{"big", "small"}, IntentLogin)[0] == "small" {
				small++
			}
		}
		if small > 0 {
			t.Errorf("%s: the 50-slot backend at 5 players came first in %d of 100 orders beside a 4000-slot one at 420, want none (12%% with the player against 10.5%%)", name, small)
		}
	}
}
