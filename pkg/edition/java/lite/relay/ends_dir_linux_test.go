//go:build linux

package relay

import (
	"io"
	"testing"
	"time"
)

// TestDirRulesWalk walks every row of dirRules, for each direction, on a link of real
// sockets: the row's event in its state moves the direction to the row's state and
// does what the row says, as the counts, the link's timer, the other direction, the
// sockets and the owner's Result show.
func TestDirRulesWalk(t *testing.T) {
	for _, row := range dirRules.rows {
		for _, side := range []Side{Client, Backend} {
			t.Run(row.from.String()+"/"+row.on.String()+"/"+side.String(), func(t *testing.T) {
				walkDirRow(t, row, side)
			})
		}
	}
}

func walkDirRow(t *testing.T, row dirRow, side Side) {
	checkDirRowSound(t, row)
	g := newEndsRig(t)
	d := g.dir(side)
	o := d.other()
	g.reach(t, d, row.from)
	waiting, parked, timer, other := g.r.waiting.Load(), g.r.parked.Load(), g.l.lp.timerKind, o.io.state
	dstReset, srcReset := resetsOnClose(t, d.dstFD()), resetsOnClose(t, d.srcFD())
	if !g.step(d, row.on, eventErr(row.on)) {
		t.Fatalf("step refused a pair dirRules lists")
	}
	if d.io.state != row.to {
		t.Fatalf("state %v, want %v", d.io.state, row.to)
	}
	want := waiting
	if row.do&actWait != 0 {
		want++
	}
	if row.do&actUnwait != 0 {
		want--
	}
	if got := g.r.waiting.Load(); got != want {
		t.Errorf("waiting %d, want %d", got, want)
	}
	if got, want := g.l.lp.timerKind, wantTimer(timer, side, row.do, other); got != want {
		t.Errorf("timer for %v, want %v", got, want)
	}
	if row.do&actStopOther != 0 && other != dirEnded {
		parked-- // the other direction ended too
	}
	checkRelease(t, g, d, row, parked)
	if got := halfClosed(t, d.dstFD()); got != (row.do&actHalfClose != 0) {
		t.Errorf("destination half-closed %v, want %v", got, !got)
	}
	if row.do&actHalfClose != 0 {
		_ = g.peer(d).SetReadDeadline(time.Now().Add(5 * time.Second))
		if rest, err := io.ReadAll(g.peer(d)); err != nil || len(rest) != 0 {
			t.Errorf("the destination's peer read %q, %v; want EOF", rest, err)
		}
	}
	if row.do&actStopOther != 0 && other != dirEnded && (o.io.state != dirEnded || o.err != errStopped) {
		t.Errorf("other direction %v with %v, want ended with %v", o.io.state, o.err, errStopped)
	}
	// A cut direction's destination resets; the other direction, stopped, cuts the
	// stream toward this one's source.
	if got, want := resetsOnClose(t, d.dstFD()), dstReset || row.do&actReset != 0; got != want {
		t.Errorf("destination resets on close %v, want %v", got, want)
	}
	if got, want := resetsOnClose(t, d.srcFD()), srcReset || row.do&actStopOther != 0 && other != dirEnded; got != want {
		t.Errorf("source resets on close %v, want %v", got, want)
	}
	checkResult(t, g.end(t), d, row)
}

// checkDirRowSound checks what every row must keep: Relay.waiting counts the held
// directions, and a direction is released once, when it ends.
func checkDirRowSound(t *testing.T, row dirRow) {
	t.Helper()
	held := func(s dirState) int {
		if s == dirHeld || s == dirHeldDraining {
			return 1
		}
		return 0
	}
	wait := 0
	if row.do&actWait != 0 {
		wait++
	}
	if row.do&actUnwait != 0 {
		wait--
	}
	if wait != held(row.to)-held(row.from) {
		t.Errorf("the row counts %+d waiting from %v to %v", wait, row.from, row.to)
	}
	if ends := row.to == dirEnded && row.from != dirEnded; ends != (row.do&actRelease != 0) {
		t.Errorf("the row releases %v; it ends the direction: %v", !ends, ends)
	}
}

// checkRelease checks the direction's end as actRelease makes it, or that it has none.
func checkRelease(t *testing.T, g *endsRig, d *dir, row dirRow, parked int64) {
	t.Helper()
	if row.do&actRelease == 0 {
		if got := g.r.parked.Load(); got != parked {
			t.Errorf("parked %d, want %d", got, parked)
		}
		return
	}
	if got := g.r.parked.Load(); got != parked-1 {
		t.Errorf("parked %d, want %d", got, parked-1)
	}
	if d.io.buf != nil || d.io.pipe != nil {
		t.Errorf("the ended direction still holds a buffer or a pipe")
	}
	if d.err != eventErr(row.on) {
		t.Errorf("error %v, want %v", d.err, eventErr(row.on))
	}
}

// checkResult checks what the owner was told of an end the row made.
func checkResult(t *testing.T, res Result, d *dir, row dirRow) {
	t.Helper()
	if row.do&actRelease == 0 {
		return
	}
	if res.First != d.side {
		t.Errorf("result names %v first, want %v", res.First, d.side)
	}
	if got := res.FirstErr(); got != eventErr(row.on) {
		t.Errorf("result's first error %v, want %v", got, eventErr(row.on))
	}
}

// TestDirRulesRefuseWhatTheyDoNotList: a pair dirRules does not list cannot happen;
// step refuses it and changes nothing.
func TestDirRulesRefuseWhatTheyDoNotList(t *testing.T) {
	walkUnlisted(t, dirRules, func(t *testing.T, s dirState, ev dirEvent) {
		g := newEndsRig(t)
		d := &g.l.up
		g.reach(t, d, s)
		before, waiting, parked, timer := *d, g.r.waiting.Load(), g.r.parked.Load(), g.l.lp.timerKind
		if g.step(d, ev, eventErr(ev)) {
			t.Fatal("step took a pair dirRules does not list")
		}
		if *d != before || g.r.waiting.Load() != waiting || g.r.parked.Load() != parked || g.l.lp.timerKind != timer {
			t.Fatal("a refused step changed the direction, the counts or the timer")
		}
	})
}
