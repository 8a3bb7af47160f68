package wake

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// TestEveryTransitionThroughTheCoordinator drives a target to each row's
// phase through the Coordinator's own calls, makes the row's event happen
// the way it happens in use, and waits for the Coordinator to take exactly
// that step.
func TestEveryTransitionThroughTheCoordinator(t *testing.T) {
	for _, row := range steps() {
		t.Run(row.from.String()+" on "+row.on.String(), func(t *testing.T) {
			s := newScene(t, row)
			s.reach(row.from)
			s.trigger()
			mctest.WaitFor(t, "the step to "+row.to.String(), wait, func() bool { return s.saw(row) })
		})
	}
}

func TestUndefinedTransitionsAreRefused(t *testing.T) {
	logs := &mctest.Logs{}
	c := NewCoordinator(Options{Log: logs.Logger(0)})
	defer c.Close()
	c.Bind([]Binding{{Target: &fakeTarget{key: key}}})
	tg := c.targets[key]
	refused := 0
	for from := asleep; from < phaseEnd; from++ {
		for on := onWake; on < eventEnd; on++ {
			if transitions[on][from] != 0 {
				continue
			}
			var steps []change
			c.mu.Lock()
			tg.phase = from
			since := tg.since
			ok := c.fire(tg, on, &steps)
			after, sinceAfter := tg.phase, tg.since
			c.mu.Unlock()
			c.logChanges(steps)
			refused++
			if ok || after != from || !sinceAfter.Equal(since) {
				t.Errorf("%v on %v: fire %v, phase %v since %v; want refused, %v since %v", from, on, ok, after, sinceAfter, from, since)
			}
			if n := logs.Count(refusedLine); n != refused {
				t.Fatalf("%v on %v: %d refusals logged, want %d", from, on, n, refused)
			}
		}
	}
	if want := int(phaseEnd-1)*int(eventEnd-1) - len(steps()); refused != want {
		t.Fatalf("%d undefined pairs, want %d", refused, want)
	}
}

// steps lists the table's entries, in event order.
func steps() []step {
	var ss []step
	for on := onWake; on < eventEnd; on++ {
		for from := asleep; from < phaseEnd; from++ {
			if to := transitions[on][from]; to != 0 {
				ss = append(ss, step{from, on, to})
			}
		}
	}
	return ss
}

// scene is one rig whose engine and Holders calls wait on gates, set up for
// one row: the target, its Holders and its ready func are what the row's
// event needs.
type scene struct {
	*rig
	row     step
	f       *fakeTarget
	h       *parkedHolders
	binding Binding
	answers chan bool   // a flight's ready answers, one per call
	never   atomic.Bool // ready answers false at once

	mu   sync.Mutex
	seen []step
}

func newScene(t *testing.T, row step) *scene {
	h := &parkedHolders{Holders: Local(), answer: make(chan bool)}
	s := &scene{rig: newRig(t, h), row: row, h: h, answers: make(chan bool)}
	s.c.readyWithin = time.Second
	s.c.stepped = func(ch change) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !ch.refused {
			s.seen = append(s.seen, ch.step)
		}
	}
	s.f = &fakeTarget{key: key, clk: s.clk, gate: make(chan struct{})}
	switch {
	case row.on == onWakeFailed || row.from == backoff:
		s.f.wakeErr = errors.New("engine says no")
	case row.on == onSleepFailed:
		s.f.sleepErr = errors.New("daemon gone")
	}
	// Sleep outcomes need the claim granted and the Sleep call parked; every
	// other row parks the sleep, if one begins, in its claim.
	if row.on == onSleepDone || row.on == onSleepFailed {
		s.f.sleepGate = make(chan struct{})
	} else {
		h.park.Store(true)
	}
	var tg Target = s.f
	if s.viaAsleep() || row.on == onStopped {
		no := false
		s.f.running = &no
		tg = observerTarget{s.f}
		if row.on == onStopped {
			s.f.runGate = make(chan struct{})
		}
	}
	if row.from == checking && row.on == onNotReady {
		// Not ready at first, but its engine runs it: polled, not woken again.
		yes := true
		s.f.running = &yes
		tg = observerTarget{s.f}
	}
	s.binding = Binding{Target: tg, IdleAfter: time.Minute}
	return s
}

// viaAsleep says the row's phase is reached from asleep: a sleep's outcome
// in waking needs a login during a sleep instead.
func (s *scene) viaAsleep() bool {
	switch s.row.on {
	case onClaimDenied, onSleepDone, onSleepFailed:
		return s.row.from == asleep
	}
	return s.row.from == asleep || s.row.from == waking || s.row.from == backoff
}

func (s *scene) phase() phase {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.c.targets[key].phase
}

func (s *scene) saw(want step) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, got := range s.seen {
		if got == want {
			return true
		}
	}
	return false
}

// shownAs is what the admin API, the metrics and pings see of each phase.
var shownAs = map[phase]struct {
	word   string
	asleep bool
}{
	asleep: {PhaseAsleep, true}, waking: {PhaseWaking, true}, checking: {PhaseAwake, false},
	awake: {PhaseAwake, false}, idle: {PhaseIdle, false}, sleeping: {PhaseIdle, false},
	interrupted: {PhaseAwake, false}, backoff: {PhaseAsleep, true},
}

// await waits for phase p, which stays until the trigger: every call that
// could move it on is parked.
func (s *scene) await(p phase) {
	s.t.Helper()
	mctest.WaitFor(s.t, "phase "+p.String(), wait, func() bool { return s.phase() == p })
	if got, want := s.state().Phase, shownAs[p].word; got != want {
		s.t.Fatalf("%v shown as %q, want %q", p, got, want)
	}
	if got := s.c.Asleep(key); got != shownAs[p].asleep {
		s.t.Fatalf("%v: Asleep = %v", p, got)
	}
}

// ready is every flight's ready func: it answers what the test sends, or
// false at once once never is set.
func (s *scene) ready(ctx context.Context, _ Result) (string, bool) {
	if s.never.Load() {
		return "", false
	}
	select {
	case ok := <-s.answers:
		return backend, ok
	case <-ctx.Done():
		return "", false
	}
}

func (s *scene) wake() { s.wakeAsync(context.Background(), s.ready) }

// reach drives the target to phase p with the Coordinator's own calls.
func (s *scene) reach(p phase) {
	s.t.Helper()
	switch p {
	case asleep, idle:
		s.c.Bind([]Binding{s.binding})
	case awake:
		s.reach(idle)
		s.c.ReportPlayers(key, 3)
	case checking:
		s.reach(idle)
		s.wake()
	case waking:
		if s.viaAsleep() {
			s.reach(asleep) // the wake call waits on the fake's gate
		} else {
			s.reach(sleeping) // a login comes while the sleep is under way
		}
		s.wake()
	case sleeping:
		s.reach(idle)
		s.clk.Advance(time.Minute)
		mctest.WaitFor(s.t, "the sleep to park", wait, func() bool { return s.h.claiming.Load() == 1 || s.f.sleeps.Load() == 1 })
	case interrupted:
		s.reach(sleeping)
		s.c.ReportPlayers(key, 3)
	case backoff:
		s.reach(waking)
		close(s.f.gate) // the wake call fails, and so will the next
	}
	s.await(p)
}

// trigger makes the row's event happen.
func (s *scene) trigger() {
	switch s.row.on {
	case onWake:
		if s.row.from == backoff {
			s.clk.Advance(time.Hour)
		}
		s.wake()
	case onTooSoon:
		s.wake()
	case onNotRunning:
		s.answers <- false
	case onReady:
		close(s.f.gate)
		s.answers <- true
	case onWakeFailed, onSleepDone, onSleepFailed:
		close(s.f.gate)
		if s.f.sleepGate != nil {
			close(s.f.sleepGate)
		}
	case onNotReady:
		s.never.Store(true)
		if s.row.from == checking {
			s.answers <- false // the first check, already asked
		}
		close(s.f.gate)
		s.drive("the flight to give up", func() bool { return s.saw(s.row) })
	case onSession:
		s.c.Session(key)
	case onPlayers:
		s.c.ReportPlayers(key, 5)
	case onQuiet: // the report counts where backends are up, the reload everywhere
		s.c.ReportPlayers(key, 0)
		s.c.Bind([]Binding{s.binding})
	case onCountdownEnd:
		s.clk.Advance(time.Minute)
	case onClaimDenied:
		s.h.answer <- false
	case onStopped:
		close(s.f.runGate)
	case onUnbind:
		s.c.Bind(nil)
	}
}

// parkedHolders is Local whose ClaimSleep, when park is set, waits for the
// test's answer: false refuses, true asks Local.
type parkedHolders struct {
	Holders
	park     atomic.Bool
	claiming atomic.Int32 // parked claims
	answer   chan bool
}

func (h *parkedHolders) ClaimSleep(ctx context.Context, key string, quiet time.Duration) (bool, error) {
	if h.park.Load() {
		h.claiming.Add(1)
		defer h.claiming.Add(-1)
		select {
		case ok := <-h.answer:
			if !ok {
				return false, nil
			}
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return h.Holders.ClaimSleep(ctx, key, quiet)
}
