package strategy

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// replicaRun places players through n Managers (replicas) that share only
// the backends: a player every gap goes to a random replica, which orders
// and places it; every backend's status reports its true count to each
// replica every 10s, the replicas' probes spread over the interval. It
// returns the largest backend's players over its fair share (players times
// its share of the capacity).
func replicaRun(t *testing.T, name Name, n, players int, gap time.Duration, capacity map[string]int, seed uint64) float64 {
	t.Helper()
	clk := newClock()
	var bs []string
	total := 0
	for _, addr := range slices.Sorted(maps.Keys(capacity)) {
		if capacity[addr] > 0 {
			bs = append(bs, addr)
			total += capacity[addr]
		}
	}
	ms := make([]*Manager, n)
	for i := range ms {
		ms[i] = NewManager(Options{Seed: seed*1000 + uint64(i+1), Now: clk.Now})
		ms[i].SetRoutes([]Route{{Key: "r", Strategy: name, Backends: bs}})
	}
	online := map[string]int{}
	report := func(m *Manager) {
		for _, addr := range bs {
			m.ObserveStatus(addr, Report{RTT: 20 * time.Millisecond, Online: online[addr], Max: capacity[addr], HasPlayers: true}, nil)
		}
	}
	for _, m := range ms {
		report(m)
	}
	const interval = 10 * time.Second
	rng := rand.New(rand.NewPCG(seed*1000+uint64(n), 5))
	next := make([]time.Duration, n) // each replica's next probe round
	for i := range next {
		next[i] = interval * time.Duration(i) / time.Duration(n)
	}
	var at time.Duration
	for range players {
		at += gap
		clk.Advance(gap)
		for i, m := range ms {
			for next[i] <= at {
				report(m)
				next[i] += interval
			}
		}
		m := ms[rng.IntN(n)]
		addr := m.Order("r", bs, IntentLogin)[0]
		m.Reserve(addr).Settle(20*time.Millisecond, nil)
		online[addr]++
	}
	worst := 0.0
	var line string
	for _, addr := range bs {
		fair := float64(players) * float64(capacity[addr]) / float64(total)
		worst = max(worst, float64(online[addr])/fair)
		line += fmt.Sprintf(" %s=%d/%d", addr, online[addr], capacity[addr])
	}
	t.Logf("%s, %d replicas, seed %d:%s, max/fair %.2f", name, n, seed, line, worst)
	return worst
}

// Issue 22, defect 5: each replica charged its own placement times the replica
// estimate, so one player on a small backend read as a sizeable share of it and
// least-loaded filled small backends in whole quanta (1.20-1.24 here at 16-32
// replicas, capacities 400/100/100/50 half full at 5 logins a second). Least-loaded
// now draws its first pick from the replicas' common plan. Issue 32 adds the
// 4000/400/100/100/50 world. Each case runs ten seeds: one run's figure at the
// 1.15 target is a lottery on which replica places the smallest backend's last
// player (over 20 seeds, 0-2 runs of a case land above it, before this change
// and after), so least-loaded's mean is held to 1.10 and every run to 1.25;
// p2c, which samples, to 1.15 and 1.30 (its mean on 400/100/100/50 at 32
// replicas is 1.11).
func TestManyReplicasOnSkewedCapacities(t *testing.T) {
	worlds := []map[string]int{
		{"a": 400, "b": 100, "c": 100, "d": 50},
		{"a": 1000, "b": 100, "c": 100, "d": 100},
		{"a": 100, "b": 200, "c": 300, "d": 400},
		{"a": 4000, "b": 400, "c": 100, "d": 100, "e": 50},
	}
	for _, name := range []Name{P2C, LeastLoaded} {
		for _, n := range []int{16, 32} {
			for wi, w := range worlds {
				t.Run(fmt.Sprintf("%s/%d replicas/world %d", name, n, wi), func(t *testing.T) {
					players := 0
					for _, c := range w {
						players += c / 2
					}
					var sum, worst float64
					for seed := range uint64(10) {
						got := replicaRun(t, name, n, players, 200*time.Millisecond, w, seed)
						sum += got
						worst = max(worst, got)
					}
					meanBound, worstBound := 1.10, 1.25
					if name == P2C {
						meanBound, worstBound = 1.15, 1.30
					}
					t.Logf("max/fair over ten seeds: mean %.3f, worst %.2f", sum/10, worst)
					if sum/10 > meanBound || worst > worstBound {
						t.Errorf("max/fair mean %.3f, worst %.2f over ten seeds; want at most %.2f and %.2f", sum/10, worst, meanBound, worstBound)
					}
				})
			}
		}
	}
}

// Replicas that start together read themselves alone (no report has counted
// their own players yet), and least-loaded's shuffled ties gave every
// replica's first player to each backend alike: with 32 replicas on
// 4000/400/100/100/50, the 50 took 15 of the first 100 players (max/fair
// 16 over eight seeds). Until the estimate is measured, ties go by capacity:
// the 900 of a 900/100 pair takes about nine in ten first picks.
func TestUnmeasuredReplicasBreakTiesByCapacity(t *testing.T) {
	big := 0
	for seed := range uint64(1000) {
		clk := newClock()
		m := NewManager(Options{Seed: seed + 1, Now: clk.Now})
		m.SetRoutes([]Route{{Key: "r", Strategy: LeastLoaded, Backends: []string{"big", "small"}}})
		m.ObserveStatus("big", Report{RTT: 20 * time.Millisecond, Online: 0, Max: 900, HasPlayers: true}, nil)
		m.ObserveStatus("small", Report{RTT: 20 * time.Millisecond, Online: 0, Max: 100, HasPlayers: true}, nil)
		if m.Order("r", []string{"big", "small"}, IntentLogin)[0] == "big" {
			big++
		}
	}
	if big < 860 || big > 940 {
		t.Fatalf("the 900 went first for %d of 1000 fresh replicas, want about 900", big)
	}
}
