package wake

import (
	"fmt"
	"time"
)

// Phases of a target as State.Phase, the metrics and the log lines name them.
const (
	// PhaseAsleep: stopped by us (or found stopped by its engine); pings are
	// answered as asleep and the first login wakes it.
	PhaseAsleep = "asleep"
	// PhaseWaking: a wake call or the wait for a ready backend is under way.
	PhaseWaking = "waking"
	// PhaseAwake: running, or not known to be stopped.
	PhaseAwake = "awake"
	// PhaseIdle: awake with nobody on it; the idle countdown runs (State.SleepAt).
	PhaseIdle = "idle"
)

// phase is where a target is. Four of them are the words shown outside; the
// other four are states the Coordinator must tell apart that show as one of
// those words: three have an engine or Holders call under way that decides
// what comes next, and backoff turns logins away after a failed wake call.
type phase uint8

const (
	asleep phase = iota + 1
	waking
	// checking: a Wake of a target thought awake asks ready before any wake
	// call (its engine may have stopped it behind our back). Shown awake.
	checking
	awake
	idle
	// sleeping: the countdown ended and the sleep claim or the Sleep call is
	// under way, with nobody come meanwhile. Shown idle.
	sleeping
	// interrupted: someone came while a sleep was under way. It is awake
	// unless the Sleep call, if already made, succeeds. Shown awake.
	interrupted
	// backoff: a wake call failed; logins are turned away without a call
	// until target.retryAt (backoff.go). Shown asleep.
	backoff
	phaseEnd // bounds the lookup array
)

var phaseNames = [phaseEnd]string{asleep: "asleep", waking: "waking", checking: "checking",
	awake: "awake", idle: "idle", sleeping: "sleeping", interrupted: "interrupted", backoff: "backoff"}

func (p phase) String() string {
	if p < phaseEnd && phaseNames[p] != "" {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// shown is the word State.Phase, the metrics and the log lines use.
func (p phase) shown() string {
	switch p {
	case asleep, backoff:
		return PhaseAsleep
	case waking:
		return PhaseWaking
	case idle, sleeping:
		return PhaseIdle
	}
	return PhaseAwake
}

// down says the target's backends are not up: pings are answered as asleep,
// and a players report is stale (it comes from a cache of before).
func (p phase) down() bool { return p == asleep || p == waking || p == backoff }

// counting says the idle countdown runs, or ran out and its sleep is under way.
func (p phase) counting() bool { return p == idle || p == sleeping }

// event is what happened to a target.
type event uint8

const (
	onWake         event = iota + 1 // Wake with no flight under way
	onNotRunning                    // a checking flight's first ready failed
	onReady                         // a flight found a backend that answered
	onWakeFailed                    // the engine's wake call failed
	onNotReady                      // no backend answered within ReadyWithin
	onSession                       // the first session began
	onPlayers                       // a status answer reported players.online > 0
	onQuiet                         // no session, no players reported, IdleAfter set
	onCountdownEnd                  // the idle countdown ran out
	onClaimDenied                   // ClaimSleep refused or failed, or someone came first
	onSleepDone                     // the Sleep call succeeded
	onSleepFailed                   // the Sleep call failed
	onStopped                       // the Observer said the target does not run
	onUnbind                        // a reload dropped the key
	onTooSoon                       // Wake in backoff before retryAt: turned away
	eventEnd
)

var eventNames = [eventEnd]string{onWake: "wake", onNotRunning: "not running", onReady: "ready",
	onWakeFailed: "wake failed", onNotReady: "not ready", onSession: "session", onPlayers: "players",
	onQuiet: "quiet", onCountdownEnd: "countdown end", onClaimDenied: "claim denied",
	onSleepDone: "sleep done", onSleepFailed: "sleep failed", onStopped: "stopped", onUnbind: "unbind", onTooSoon: "too soon"}

func (e event) String() string {
	if e < eventEnd && eventNames[e] != "" {
		return eventNames[e]
	}
	return fmt.Sprintf("event(%d)", uint8(e))
}

// step is one entry of the transition table: on event on, phase from
// becomes to.
type step struct {
	from phase
	on   event
	to   phase
}

// transitions is the one statement of how a target's phase moves: for each
// event, the phases it may arrive in and what each becomes. An entry that
// keeps its phase says the event is expected there and changes nothing; a
// phase an event has no entry for cannot meet it, and fire refuses the pair.
var transitions = [eventEnd][phaseEnd]phase{
	// A player is coming. An idle countdown stops; a sleep under way is
	// waited for, since its Sleep call may stop the target. In backoff only
	// once retryAt has passed; before, onTooSoon.
	onWake: {asleep: waking, awake: checking, idle: checking, sleeping: waking, interrupted: waking,
		backoff: waking},
	onNotRunning: {checking: waking},
	onReady:      {waking: awake, checking: awake},
	// Every login of the target waits out the backoff together: one failing
	// engine costs a call per backoff, not one per player.
	onWakeFailed: {waking: backoff},
	onTooSoon:    {backoff: backoff},
	// The engine runs it: the countdown may put it back.
	onNotReady: {waking: awake, checking: awake},

	// A session to a target thought asleep proves it runs.
	onSession: {asleep: awake, waking: waking, checking: checking, awake: awake, idle: awake,
		sleeping: interrupted, interrupted: interrupted, backoff: awake},
	// Reports while the backends are down are dropped before they get here.
	onPlayers: {checking: checking, awake: awake, idle: awake, sleeping: interrupted, interrupted: interrupted},
	// A running countdown keeps its deadline; a sleep under way ends first.
	onQuiet: {asleep: asleep, waking: waking, checking: checking, awake: idle, idle: idle,
		sleeping: sleeping, interrupted: interrupted, backoff: backoff},
	onCountdownEnd: {idle: sleeping},

	// A sleep is under way only in sleeping, in interrupted, and in waking
	// when a login came during it (its wake call waits for the sleep). A
	// denied or failed sleep of an idle target is retried after another
	// IdleAfter.
	onClaimDenied: {sleeping: idle, interrupted: awake, waking: waking},
	onSleepDone:   {sleeping: asleep, interrupted: asleep, waking: waking},
	onSleepFailed: {sleeping: idle, interrupted: awake, waking: waking},

	// Observers are asked once, when the key is new: it is awake or idle
	// unless a wake, session or sleep began, which makes the answer stale.
	onStopped: {awake: asleep, idle: asleep},
	onUnbind: {asleep: asleep, waking: waking, checking: checking, awake: awake, idle: awake,
		sleeping: interrupted, interrupted: interrupted, backoff: backoff},
}

// change is one step taken or refused, logged after the lock is released.
type change struct {
	name string // target.name
	step step
	// refused: the table has no entry for step.from and step.on.
	refused bool
	took    time.Duration // in the phase shown before
	err     string
	// retryIn: the backoff entered; turnedAway: the logins the backoff left
	// turned away (one line per backoff tells them all).
	retryIn    time.Duration
	turnedAway int
}

// fire moves t along the table on ev and says whether an entry allowed it. A
// pair with no entry is a bug of the Coordinator's: it is refused, leaving the
// phase alone, and logged as an error. It does not panic: the proxy serves
// other routes, and this target's next event will move it on.
// Caller holds c.mu.
func (c *Coordinator) fire(t *target, ev event, logs *[]change) bool {
	s := step{from: t.phase, on: ev}
	if s.from < phaseEnd && ev < eventEnd {
		s.to = transitions[ev][s.from]
	}
	if s.to == 0 {
		*logs = append(*logs, change{name: t.name, step: s, refused: true})
		return false
	}
	c.enter(t, s, logs)
	return true
}

// enter takes step s and what its phases mean for the idle countdown: it is
// armed on entering idle, left to its sleep on entering sleeping (SleepAt
// stays shown until the sleep ends), and stopped on leaving both.
// Caller holds c.mu.
func (c *Coordinator) enter(t *target, s step, logs *[]change) {
	t.phase = s.to
	switch {
	case s.from == idle && s.to == sleeping:
		t.stopIdle = nil // it fired
	case s.from.counting() && !s.to.counting():
		c.stopCountdown(t)
	}
	if s.to == idle && s.from != idle && !c.closed {
		c.armIdle(t, t.bind.IdleAfter)
	}
	ch := change{name: t.name, step: s}
	c.backoffStep(t, s, &ch)
	if s.from.shown() != s.to.shown() {
		now := c.now()
		ch.took = now.Sub(t.since)
		t.since = now
		if to := s.to.shown(); to == PhaseAsleep || to == PhaseAwake {
			ch.err = t.err
		}
	}
	*logs = append(*logs, ch)
}

// logChanges logs a line per change of the phase shown and per refused
// step; steps that change nothing shown are told only to Coordinator.stepped.
func (c *Coordinator) logChanges(logs []change) {
	for _, ch := range logs {
		if c.stepped != nil {
			c.stepped(ch)
		}
		s := ch.step
		switch {
		case ch.refused:
			c.log.Error(fmt.Errorf("no transition from %v on %v", s.from, s.on),
				"wake target: undefined phase transition refused", "target", ch.name)
		case s.from.shown() != s.to.shown():
			kv := []any{"target", ch.name, "from", s.from.shown(), "to", s.to.shown(), "took", ch.took}
			if ch.err != "" {
				kv = append(kv, "err", ch.err)
			}
			if ch.retryIn > 0 {
				kv = append(kv, "retryIn", ch.retryIn)
			}
			if ch.turnedAway > 0 {
				kv = append(kv, "turnedAway", ch.turnedAway)
			}
			// Between awake and idle is every session's start and end on the
			// route, and players reporting in: a debug line, not one per player.
			log := c.log
			if countdownOnly(s.from.shown(), s.to.shown()) {
				log = c.log.V(1)
			}
			log.Info("wake target changed phase", kv...)
		}
	}
}

// countdownOnly reports a change between awake and idle: the idle countdown armed or
// cancelled, nothing started or stopped.
func countdownOnly(from, to string) bool {
	return (from == PhaseAwake || from == PhaseIdle) && (to == PhaseAwake || to == PhaseIdle)
}
