//go:build linux

package relay

import "fmt"

// The rules of a parked pipe's ends, as two tables: where a direction stands
// (dirRules) and what the link's one timer is for (timerRules). The code that moves
// bytes only reports events (step, timerStep); what an event does in a state is said
// here and nowhere else, and the ends tests walk every row (ends_dir_linux_test.go,
// ends_timer_linux_test.go).

// dirState is where a parked direction stands on the way to its end. The zero value
// is a direction that has just parked.
type dirState uint8

const (
	// dirOpen: the source may send more, and the destination took all it was given.
	dirOpen dirState = iota
	// dirDraining: the source reported its FIN or a failure, so a short read no longer
	// means it is dry: its end is still to be read.
	dirDraining
	// dirHeld: the destination took no more; bytes wait for it (in the direction's
	// buffer or pipe), counted in Relay.waiting, and the source is not read meanwhile
	// (TCP holds it back).
	dirHeld
	// dirHeldDraining: held, and the source reported its end.
	dirHeldDraining
	// dirEnded: the direction is over; it holds nothing and is no longer parked.
	dirEnded
	dirStates
)

var dirStateNames = [dirStates]string{"open", "draining", "held", "held-draining", "ended"}

func (s dirState) String() string { return name(s, dirStateNames[:], "dirState") }

// draining reports whether the source reported its end.
func (s dirState) draining() bool { return s == dirDraining || s == dirHeldDraining }

// dirEvent is what moves a direction.
type dirEvent uint8

const (
	// evSourceEnd: an edge of the source said FIN, hang-up or failure.
	evSourceEnd dirEvent = iota
	// evBlocked: a write said EAGAIN; what it did not take is held.
	evBlocked
	// evFlushed: the destination took everything the direction held.
	evFlushed
	// evEOF: a read of the source returned 0 with nothing held: a clean end.
	evEOF
	// evFail: a call of the direction failed, or the stall bound ran out on it.
	evFail
	// evStop: the session ends the direction from outside: the other direction
	// failed, the linger ran out, or Abort (the error says which).
	evStop
	dirEvents
)

var dirEventNames = [dirEvents]string{"source-end", "blocked", "flushed", "eof", "fail", "stop"}

func (e dirEvent) String() string { return name(e, dirEventNames[:], "dirEvent") }

// act is what a row does besides moving its state, in this order. The two tables draw
// on one set: a direction's rows tell the timer (actStall, actUnstall, actLinger), the
// timer's rows end directions (actFailUp, actCutBoth).
type act uint16

const (
	// actWait counts the direction in Relay.waiting.
	actWait act = 1 << iota
	// actUnwait takes it out of Relay.waiting.
	actUnwait
	// actStall tells the link's timer the up direction is held (timerRules); the
	// down direction has no bound.
	actStall
	// actUnstall tells the link's timer the up direction's bytes all went.
	actUnstall
	// actRelease records the direction's end (its error, whether it was first), gives
	// back its buffer and pipe (a pipe with bytes in it is closed by the pool, never
	// reused) and counts it no longer parked.
	actRelease
	// actHalfClose shuts the destination for writing: its peer reads EOF.
	actHalfClose
	// actLinger gives the other direction, if it still runs, LingerAfterHalfClose.
	actLinger
	// actStopOther ends the other direction now (evStop, errStopped).
	actStopOther
	// actReset makes the destination's close abortive (SO_LINGER 0): its peer reads a
	// reset, not EOF. A direction that did not end cleanly (its source failed, or the
	// session cut it) must not look to the peer it feeds like one that did.
	actReset

	// actMark notes the up direction's byte count: the stall bound starts afresh from it.
	actMark
	// actArmStall (re)arms the timer for the stall bound (LeftGrace once the player has gone).
	actArmStall
	// actArmLinger (re)arms it for LingerAfterHalfClose.
	actArmLinger
	// actStop stops it.
	actStop
	// actFailUp ends the up direction with the stall error (evFail), which stops the other.
	actFailUp
	// actCutBoth ends both directions with errLinger (evStop).
	actCutBoth
)

// What each table's rows may do (newTable holds them to it): step and timerStep each
// do only their own table's.
const (
	dirActs   = actMark - 1
	timerActs = actCutBoth<<1 - actMark
)

// Ends, by how they come: a clean one ends in a FIN, a failed or cut one in a reset.
const (
	endClean  = actRelease | actHalfClose | actLinger
	endCut    = actRelease | actReset
	endFailed = endCut | actStopOther
)

type dirRow = row[dirState, dirEvent]

// dirRules is every transition of a parked direction. A pair it does not list cannot
// happen (a held direction reads nothing, so it sees no EOF; an ended one moves no
// bytes) and step refuses it.
var dirRules = newTable(dirStates, dirEvents, dirActs, []dirRow{
	{dirOpen, evSourceEnd, dirDraining, 0},
	{dirOpen, evBlocked, dirHeld, actWait | actStall},
	{dirOpen, evFlushed, dirOpen, 0}, // a burst's chunk went through the pipe
	{dirOpen, evEOF, dirEnded, endClean},
	{dirOpen, evFail, dirEnded, endFailed},
	{dirOpen, evStop, dirEnded, endCut},

	{dirDraining, evSourceEnd, dirDraining, 0},
	{dirDraining, evBlocked, dirHeldDraining, actWait | actStall},
	{dirDraining, evFlushed, dirDraining, 0},
	{dirDraining, evEOF, dirEnded, endClean},
	{dirDraining, evFail, dirEnded, endFailed},
	{dirDraining, evStop, dirEnded, endCut},

	{dirHeld, evSourceEnd, dirHeldDraining, 0},
	// A flush moved some and blocked again: the bound starts afresh if any went.
	{dirHeld, evBlocked, dirHeld, actStall},
	{dirHeld, evFlushed, dirOpen, actUnwait | actUnstall},
	{dirHeld, evFail, dirEnded, actUnwait | endFailed},
	{dirHeld, evStop, dirEnded, actUnwait | endCut},

	{dirHeldDraining, evSourceEnd, dirHeldDraining, 0},
	{dirHeldDraining, evBlocked, dirHeldDraining, actStall},
	{dirHeldDraining, evFlushed, dirDraining, actUnwait | actUnstall},
	{dirHeldDraining, evFail, dirEnded, actUnwait | endFailed},
	{dirHeldDraining, evStop, dirEnded, actUnwait | endCut},

	// Edges keep coming until the sockets close, and the other direction's end, the
	// linger or Abort may find this one over already.
	{dirEnded, evSourceEnd, dirEnded, 0},
	{dirEnded, evStop, dirEnded, 0},
}...)

// timerKind is what the link's one timer is for. The zero value is a link without one.
type timerKind uint8

const (
	// timerNone: no bound is running (a stopped timer, or none made yet).
	timerNone timerKind = iota
	// timerStall: the player's bytes wait for a backend that accepts none of them; the
	// session lasts StallTimeout (LeftGrace once the player has gone), counted afresh
	// each time the backend takes some.
	timerStall
	// timerLinger: one direction ended cleanly; the other has LingerAfterHalfClose to
	// end by itself.
	timerLinger
	timerKinds
)

var timerKindNames = [timerKinds]string{"none", "stall", "linger"}

func (k timerKind) String() string { return name(k, timerKindNames[:], "timerKind") }

// timerEvent is what moves the link's timer.
type timerEvent uint8

const (
	// tmHeld: the up direction's write blocked and the backend took nothing since the
	// bound was set; tmHeldMoved: it took some.
	tmHeld timerEvent = iota
	tmHeldMoved
	// tmFlushed: the backend took all of the player's held bytes.
	tmFlushed
	// tmClientGone: the poller saw the player's socket hang up or fail.
	tmClientGone
	// tmCleanEnd: a direction ended cleanly while the other still runs.
	tmCleanEnd
	// tmFired: the timer ran out and the backend took nothing since the bound was set;
	// tmFiredMoved: it took some.
	tmFired
	tmFiredMoved
	// tmClosed: both directions ended and the link closes its sockets.
	tmClosed
	timerEvents
)

var timerEventNames = [timerEvents]string{"held", "held-moved", "flushed", "client-gone", "clean-end", "fired", "fired-moved", "closed"}

func (e timerEvent) String() string { return name(e, timerEventNames[:], "timerEvent") }

type timerRow = row[timerKind, timerEvent]

// timerRules is every transition of the link's timer; a pair it does not list cannot
// happen (the timer does not run out while none is armed, as onTimer sees), and
// timerStep refuses it.
var timerRules = newTable(timerKinds, timerEvents, timerActs, []timerRow{
	{timerNone, tmHeld, timerStall, actMark | actArmStall},
	{timerNone, tmHeldMoved, timerStall, actMark | actArmStall},
	{timerNone, tmFlushed, timerNone, 0},
	{timerNone, tmClientGone, timerNone, 0},
	{timerNone, tmCleanEnd, timerLinger, actArmLinger},
	{timerNone, tmClosed, timerNone, actStop},

	{timerStall, tmHeld, timerStall, 0}, // the bound set earlier still runs
	{timerStall, tmHeldMoved, timerStall, actMark | actArmStall},
	{timerStall, tmFlushed, timerNone, actStop},
	{timerStall, tmClientGone, timerStall, actArmStall}, // the same bound, now LeftGrace
	{timerStall, tmCleanEnd, timerLinger, actArmLinger},
	{timerStall, tmFired, timerNone, actFailUp},
	{timerStall, tmFiredMoved, timerStall, actMark | actArmStall},
	{timerStall, tmClosed, timerNone, actStop},

	// Past one clean end only the linger bounds the session: no stall bound.
	{timerLinger, tmHeld, timerLinger, 0},
	{timerLinger, tmHeldMoved, timerLinger, 0},
	{timerLinger, tmFlushed, timerLinger, 0},
	{timerLinger, tmClientGone, timerLinger, 0},
	{timerLinger, tmCleanEnd, timerLinger, actArmLinger},
	{timerLinger, tmFired, timerNone, actCutBoth},
	{timerLinger, tmFiredMoved, timerNone, actCutBoth},
	{timerLinger, tmClosed, timerNone, actStop},
}...)

// row is one rule of a table: event on, in state from, moves to state to, doing do.
type row[S, E ~uint8] struct {
	from S
	on   E
	to   S
	do   act
}

// rule is a row as a lookup finds it; ok is false for a pair the table does not list.
type rule[S ~uint8] struct {
	to S
	do act
	ok bool
}

// table is a state machine's rows, indexed by state and event so that a lookup costs
// one slice index.
type table[S, E ~uint8] struct {
	rows   []row[S, E]
	events int
	next   []rule[S]
}

// newTable indexes rows for states states and events events. A pair listed twice or
// out of range, or a row that does what the table's step does not (outside acts), is
// a mistake in the table, caught when the package loads.
func newTable[S, E ~uint8](states S, events E, acts act, rows ...row[S, E]) *table[S, E] {
	t := &table[S, E]{rows: rows, events: int(events), next: make([]rule[S], int(states)*int(events))}
	for _, r := range rows {
		i := int(r.from)*t.events + int(r.on)
		if r.from >= states || r.on >= events || r.to >= states || r.do&^acts != 0 || t.next[i].ok {
			panic(fmt.Sprintf("relay: rule for %v on %v listed twice, out of range or doing another table's acts", r.from, r.on))
		}
		t.next[i] = rule[S]{to: r.to, do: r.do, ok: true}
	}
	return t
}

// name is v's name in names, or what it is if names has none.
func name[T ~uint8](v T, names []string, kind string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, uint8(v))
}

// lookup is the rule for event e in state s.
func (t *table[S, E]) lookup(s S, e E) rule[S] {
	return t.next[int(s)*t.events+int(e)]
}
