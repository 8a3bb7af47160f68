//go:build linux

package relay

import (
	"errors"
	"testing"
	"time"
)

// reachTimer brings the link's timer to k the way the loop does: the player's bytes
// held for the stall bound, the backend's clean end for the linger.
func (g *endsRig) reachTimer(t *testing.T, k timerKind) {
	t.Helper()
	switch k {
	case timerStall:
		g.hold(t, &g.l.up)
	case timerLinger:
		g.step(&g.l.down, evEOF, nil)
	}
	if g.l.lp.timerKind != k {
		t.Fatalf("timer for %v, want %v", g.l.lp.timerKind, k)
	}
}

// TestTimerRulesWalk walks every row of timerRules on a link of real sockets: the
// row's event moves the timer to the row's kind, arms it for as long as the row says
// or stops it, and ends the directions the row ends, as the owner's Result shows.
func TestTimerRulesWalk(t *testing.T) {
	for _, row := range timerRules.rows {
		t.Run(row.from.String()+"/"+row.on.String(), func(t *testing.T) {
			checkTimerRowSound(t, row)
			g := newEndsRig(t)
			g.reachTimer(t, row.from)
			lp := &g.l.lp
			g.l.up.n = 1234 // bytes the backend took since the mark
			lp.clientGone = row.on == tmClientGone
			mark, due, up, down := lp.stallMark, lp.due, g.l.up.io.state, g.l.down.io.state
			before := time.Now()
			if !g.timerStep(row.on) {
				t.Fatal("timerStep refused a pair timerRules lists")
			}
			after := time.Now()
			if lp.timerKind != row.to {
				t.Fatalf("timer for %v, want %v", lp.timerKind, row.to)
			}
			if got := lp.stallMark == 1234; got != (row.do&actMark != 0) {
				t.Errorf("stall mark %d (was %d), want it moved: %v", lp.stallMark, mark, !got)
			}
			checkArmed(t, g, row, due, before, after)
			checkTimerEnds(t, g, row, up, down)
		})
	}
}

// checkTimerRowSound checks what every row must keep: an armed timer is for what it
// was armed for, a stopped or spent one for nothing.
func checkTimerRowSound(t *testing.T, row timerRow) {
	t.Helper()
	var want timerKind
	switch {
	case row.do&actArmStall != 0:
		want = timerStall
	case row.do&actArmLinger != 0:
		want = timerLinger
	case row.do&(actStop|actFailUp|actCutBoth) != 0:
		want = timerNone
	default:
		want = row.from // nothing armed or stopped: the bound set earlier goes on
	}
	if row.to != want {
		t.Errorf("the row leaves the timer for %v, want %v", row.to, want)
	}
}

// checkArmed checks the timer's due time and whether it still runs.
func checkArmed(t *testing.T, g *endsRig, row timerRow, due, before, after time.Time) {
	t.Helper()
	lp := &g.l.lp
	var wait time.Duration
	switch {
	case row.do&actArmStall != 0:
		wait = StallTimeout
		if row.on == tmClientGone {
			wait = LeftGrace
		}
	case row.do&actArmLinger != 0:
		wait = LingerAfterHalfClose
	default:
		if !lp.due.Equal(due) {
			t.Errorf("timer moved to %v from now, want it left alone", time.Until(lp.due))
		}
		if row.do&actStop != 0 && lp.timer != nil && lp.timer.Stop() {
			t.Error("the timer still ran")
		}
		return
	}
	if lp.timer == nil || lp.due.Before(before.Add(wait)) || lp.due.After(after.Add(wait)) {
		t.Errorf("timer due %v from now, want %v", time.Until(lp.due), wait)
	}
}

// checkTimerEnds checks the directions a row ends, and those it leaves alone.
func checkTimerEnds(t *testing.T, g *endsRig, row timerRow, up, down dirState) {
	t.Helper()
	// The stall's failure cuts both streams; the linger only the one still flowing
	// (up, toward the backend): the backend's own stream ended whole.
	backendReset := row.do&(actFailUp|actCutBoth) != 0
	clientReset := row.do&actFailUp != 0
	if got := resetsOnClose(t, g.l.lp.fd[sockBackend]); got != backendReset {
		t.Errorf("backend's socket resets on close %v, want %v", got, backendReset)
	}
	if got := resetsOnClose(t, g.l.lp.fd[sockClient]); got != clientReset {
		t.Errorf("client's socket resets on close %v, want %v", got, clientReset)
	}
	switch {
	case row.do&actFailUp != 0:
		res := g.end(t)
		if res.First != Client || !errors.Is(res.UpErr, ErrBackendStalled) || res.DownErr != errStopped {
			t.Errorf("result %+v; want the up direction stalled first, the down one stopped", res)
		}
	case row.do&actCutBoth != 0:
		res := g.end(t)
		if res.First != Backend || res.DownErr != nil || res.UpErr != errLinger {
			t.Errorf("result %+v; want the backend's clean end first, the up direction cut by the linger", res)
		}
	case g.l.up.io.state != up || g.l.down.io.state != down:
		t.Errorf("directions %v and %v, want %v and %v as they were", g.l.up.io.state, g.l.down.io.state, up, down)
	}
}

// TestTimerRulesRefuseWhatTheyDoNotList: a timer that runs out while none is armed
// (stopped, or moved, after it fired) does nothing.
func TestTimerRulesRefuseWhatTheyDoNotList(t *testing.T) {
	walkUnlisted(t, timerRules, func(t *testing.T, k timerKind, ev timerEvent) {
		g := newEndsRig(t)
		g.reachTimer(t, k)
		lp := &g.l.lp
		mark, due, up, down := lp.stallMark, lp.due, g.l.up.io, g.l.down.io
		if g.timerStep(ev) {
			t.Fatal("timerStep took a pair timerRules does not list")
		}
		if lp.timerKind != k || lp.stallMark != mark || !lp.due.Equal(due) || g.l.up.io != up || g.l.down.io != down {
			t.Fatal("a refused step changed the timer or a direction")
		}
	})
}
