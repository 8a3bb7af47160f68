package strategy

import (
	"testing"
	"time"
)

// recoveryRun drives one route of name over a, b, c on a virtual clock: 10
// logins a second, each player staying 30s, a status probe of every
// backend each second. c breaks for a minute (its players are dropped, its
// probes and logins fail) and is fixed at fixAt. It returns when c got its
// first player after the fix, and the most c got of the logins in any 10s
// window of the minute after that, over its fair share.
func recoveryRun(t *testing.T, name Name) (first, verdict time.Duration, worst float64) {
	t.Helper()
	bs := []string{"a", "b", "c"}
	m, clk := newTestManager(t, name, bs...)
	const (
		step    = 100 * time.Millisecond
		stay    = 30 * time.Second
		breakAt = 60 * time.Second
		fixAt   = 120 * time.Second
		end     = 300 * time.Second
	)
	type held struct {
		l     *Lease
		until time.Duration
	}
	var players []held
	var cPlaced []time.Duration // when c got each player after the fix
	first, verdict = -1, -1
	for at := time.Duration(0); at < end; at += step {
		clk.Advance(step)
		broken := at >= breakAt && at < fixAt
		if at == breakAt {
			for _, p := range players {
				if p.l.Addr() == "c" {
					p.l.Release()
				}
			}
		}
		if at >= fixAt && verdict < 0 && state(t, m, "c").Health == HealthHealthy {
			verdict = at - fixAt
		}
		kept := players[:0]
		for _, p := range players {
			if p.until > at && (p.l.Joined()) {
				kept = append(kept, p)
			} else {
				p.l.Release()
			}
		}
		players = kept
		if at%time.Second == 0 {
			for _, addr := range bs {
				if broken && addr == "c" {
					m.ObserveStatus(addr, Report{}, errRefused)
					continue
				}
				m.ObserveStatus(addr, Report{RTT: 5 * time.Millisecond, Online: int(state(t, m, addr).Active), Max: 1000, HasPlayers: true}, nil)
			}
		}
		for _, addr := range m.Order("r", bs, IntentLogin) {
			l := m.Reserve(addr)
			if broken && addr == "c" {
				l.Settle(0, errRefused)
				l.Release()
				continue
			}
			l.Settle(5*time.Millisecond, nil)
			players = append(players, held{l, at + stay})
			if addr == "c" && at >= fixAt {
				if first < 0 {
					first = at - fixAt
				}
				cPlaced = append(cPlaced, at)
			}
			break
		}
	}
	if first < 0 {
		return end, verdict, 0
	}
	// Windows of 10s sliding by 1s over the minute after c's first player.
	start := fixAt + first
	for w := start; w+10*time.Second <= start+time.Minute; w += time.Second {
		n := 0
		for _, at := range cPlaced {
			if at >= w && at < w+10*time.Second {
				n++
			}
		}
		fair := 10.0 * float64(time.Second/step) / 3
		worst = max(worst, float64(n)/fair)
	}
	return first, verdict, worst
}

// Issue 22, defect 2: after a one-minute outage a recovered backend waited minutes
// for its first player (its failure share, refreshed by one probe a second once no
// players came, kept the penalty on), and then its ramp had run out: it took 40-62%
// of new logins at once (least-connections and least-loaded had no slow start at all).
// The recovery verdict now clears the failure share, the ramp starts with the first
// player, and slow start holds for every strategy that ranks by load or players.
func TestRecoveredBackendRampsFromItsFirstPlayer(t *testing.T) {
	for _, name := range []Name{P2C, LeastLoaded, LeastConnections, LowestLatency, WeightedRandom, RoundRobin, Random} { // round-robin and random: equal turns, no ramp
		t.Run(string(name), func(t *testing.T) {
			first, verdict, worst := recoveryRun(t, name)
			t.Logf("%s: recovery verdict %v after the fix, first player %v after it, at most %.2fx its fair share in a 10s window of the first minute", name, verdict, first, worst)
			if first > 30*time.Second {
				t.Errorf("first player %v after the fix, want within 30s", first)
			}
			if worst > 1.5 {
				t.Errorf("%.2fx its fair share in a 10s window of its first minute, want at most 1.5x", worst)
			}
		})
	}
}
