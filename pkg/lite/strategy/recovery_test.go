package strategy

import (
	"testing"
	"time"
)

// The recovery scenario's virtual timeline.
const (
	recoveryStep    = 100 * time.Millisecond
	recoveryStay    = 30 * time.Second // how long each player stays
	recoveryBreakAt = 60 * time.Second
	recoveryFixAt   = 120 * time.Second
	recoveryEnd     = 300 * time.Second
)

// recoveryRun drives one route of name over a, b, c on a virtual clock: 10
// logins a second, each player staying 30s, a status probe of every
// backend each second. c breaks for a minute (its players are dropped, its
// probes and logins fail) and is fixed at recoveryFixAt. It returns when c got
// its first player after the fix, and the most c got of the logins in any 10s
// window of the minute after that, over its fair share.
func recoveryRun(t *testing.T, name Name) (first, verdict time.Duration, worst float64) {
	t.Helper()
	r := &recovery{t: t, bs: []string{"a", "b", "c"}, first: -1, verdict: -1}
	r.m, r.clk = newTestManager(t, name, r.bs...)
	for at := time.Duration(0); at < recoveryEnd; at += recoveryStep {
		r.tick(at)
	}
	if r.first < 0 {
		return recoveryEnd, r.verdict, 0
	}
	return r.first, r.verdict, r.worstShare()
}

// recovery is the state of one recoveryRun.
type recovery struct {
	t       *testing.T
	m       *Manager
	clk     advancer
	bs      []string
	players []heldLease
	cPlaced []time.Duration // when c got each player after the fix
	first   time.Duration   // c's first player after the fix; -1 before
	verdict time.Duration   // c healthy again after the fix; -1 before
}

type heldLease struct {
	l     *Lease
	until time.Duration
}

// tick is one step of the timeline at virtual time at.
func (r *recovery) tick(at time.Duration) {
	r.clk.Advance(recoveryStep)
	broken := at >= recoveryBreakAt && at < recoveryFixAt
	if at == recoveryBreakAt {
		r.dropC()
	}
	if at >= recoveryFixAt && r.verdict < 0 && state(r.t, r.m, "c").Health == HealthHealthy {
		r.verdict = at - recoveryFixAt
	}
	r.expire(at)
	if at%time.Second == 0 {
		r.probe(broken)
	}
	r.login(at, broken)
}

// dropC releases c's players when it breaks.
func (r *recovery) dropC() {
	for _, p := range r.players {
		if p.l.Addr() == "c" {
			p.l.Release()
		}
	}
}

// expire releases the players whose stay is over or whose lease ended.
func (r *recovery) expire(at time.Duration) {
	kept := r.players[:0]
	for _, p := range r.players {
		if p.until > at && (p.l.Joined()) {
			kept = append(kept, p)
		} else {
			p.l.Release()
		}
	}
	r.players = kept
}

// probe reports every backend's status; c's probe fails while it is broken.
func (r *recovery) probe(broken bool) {
	for _, addr := range r.bs {
		if broken && addr == "c" {
			r.m.ObserveStatus(addr, Report{}, errRefused)
			continue
		}
		r.m.ObserveStatus(addr, Report{RTT: 5 * time.Millisecond, Online: int(state(r.t, r.m, addr).Active), Max: 1000, HasPlayers: true}, nil)
	}
}

// login places one player on the first backend of the order that takes it.
func (r *recovery) login(at time.Duration, broken bool) {
	for _, addr := range r.m.Order("r", r.bs, IntentLogin) {
		l := r.m.Reserve(addr)
		if broken && addr == "c" {
			l.Settle(0, errRefused)
			l.Release()
			continue
		}
		l.Settle(5*time.Millisecond, nil)
		r.players = append(r.players, heldLease{l, at + recoveryStay})
		if addr == "c" && at >= recoveryFixAt {
			if r.first < 0 {
				r.first = at - recoveryFixAt
			}
			r.cPlaced = append(r.cPlaced, at)
		}
		return
	}
}

// worstShare is the most c got in a 10s window sliding by 1s over the minute
// after its first player, over its fair third of the logins.
func (r *recovery) worstShare() (worst float64) {
	start := recoveryFixAt + r.first
	for w := start; w+10*time.Second <= start+time.Minute; w += time.Second {
		n := 0
		for _, at := range r.cPlaced {
			if at >= w && at < w+10*time.Second {
				n++
			}
		}
		fair := 10.0 * float64(time.Second/recoveryStep) / 3
		worst = max(worst, float64(n)/fair)
	}
	return worst
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
