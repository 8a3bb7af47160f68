//go:build linux

package relay

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// endsRig is a parked link driven by hand: its sockets are the relay's own duplicates
// of real loopback connections, its poller one without a goroutine or an epoll set, so
// nothing but the test moves it. player and server are the far ends.
type endsRig struct {
	r              *Relay
	l              *link
	player, server *net.TCPConn
	done           chan Result
	ended          bool // end ran
}

func newEndsRig(t *testing.T) *endsRig {
	t.Helper()
	player, client := tcpPair(t)
	backend, server := tcpPair(t)
	g := &endsRig{r: &Relay{}, player: player, server: server, done: make(chan Result, 1)}
	l := &link{r: g.r, client: client, backend: backend, done: func(res Result) { g.done <- res }}
	l.up, l.down = dir{l: l, side: Client}, dir{l: l, side: Backend}
	// The last release of this poller finds its goroutine gone already, and an epoll
	// descriptor that is none (the sockets' removal from it fails harmlessly).
	exited := make(chan struct{})
	close(exited)
	p := &poller{epfd: -1, exited: exited, refs: 1, buf: make([]byte, smallRead)}
	l.lp.p, l.lp.sh = p, &shard{p: p}
	for s, c := range []*net.TCPConn{client, backend} {
		var err error
		if l.lp.fd[s], err = dupSocket(c); err != nil {
			t.Fatal(err)
		}
		l.lp.id[s] = p.watch(l, uint8(s))
	}
	l.up.io.writable, l.down.io.writable = true, true
	g.r.sessions.Add(1)
	g.r.parked.Add(2)
	g.l = l
	t.Cleanup(func() {
		if !g.ended {
			g.end(t)
		}
	})
	return g
}

// dir is the rig's direction whose bytes are side's.
func (g *endsRig) dir(side Side) *dir {
	if side == Client {
		return &g.l.up
	}
	return &g.l.down
}

// step and timerStep are the link's, under its lock as the poller and the timer take it.
func (g *endsRig) step(d *dir, ev dirEvent, err error) bool {
	g.l.lp.mu.Lock()
	defer g.l.lp.mu.Unlock()
	return g.l.step(d, ev, err)
}

func (g *endsRig) timerStep(ev timerEvent) bool {
	g.l.lp.mu.Lock()
	defer g.l.lp.mu.Unlock()
	return g.l.timerStep(ev)
}

// hold gives d bytes its destination did not take, as a blocked write does, and
// reports the block.
func (g *endsRig) hold(t *testing.T, d *dir) {
	t.Helper()
	b := g.r.getBuf()
	d.io.buf, d.io.off, d.io.end, d.io.writable = b, 0, int32(copy(*b, "held")), false
	if !g.step(d, evBlocked, nil) {
		t.Fatalf("%v direction refused to hold from %v", d.side, d.io.state)
	}
}

// reach moves d from open to state s through the events that lead there.
func (g *endsRig) reach(t *testing.T, d *dir, s dirState) {
	t.Helper()
	switch s {
	case dirDraining:
		g.step(d, evSourceEnd, nil)
	case dirHeld:
		g.hold(t, d)
	case dirHeldDraining:
		g.hold(t, d)
		g.step(d, evSourceEnd, nil)
	case dirEnded:
		g.step(d, evStop, errAborted)
	}
	if d.io.state != s {
		t.Fatalf("%v direction reached %v, want %v", d.side, d.io.state, s)
	}
}

// end aborts what still runs and waits for the link to complete: the sockets closed,
// the owner's callback run, nothing left counted.
func (g *endsRig) end(t *testing.T) Result {
	t.Helper()
	g.ended = true
	g.l.abortParked()
	var res Result
	select {
	case res = <-g.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the link did not complete")
	}
	waitCond(t, "the relay to count nothing", func() bool {
		s := g.r.Stats()
		return s.Sessions == 0 && s.Parked == 0 && s.Waiting == 0 && s.Workers == 0 && s.Pollers == 0
	})
	return res
}

// halfClosed reports whether the relay shut fd for writing: a socket that sent its
// FIN leaves ESTABLISHED at once.
func halfClosed(t *testing.T, fd int) bool {
	t.Helper()
	// tcpi_state, the first byte of struct tcp_info.
	var info [8]byte
	size := uint32(len(info))
	if _, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), syscall.IPPROTO_TCP, syscall.TCP_INFO,
		uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&size)), 0); errno != 0 {
		t.Fatal(errno)
	}
	const established = 1
	return info[0] != established
}

// resetsOnClose reports whether closing fd sends a reset: SO_LINGER on with 0 s.
func resetsOnClose(t *testing.T, fd int) bool {
	t.Helper()
	var l syscall.Linger
	size := uint32(unsafe.Sizeof(l))
	if _, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), syscall.SOL_SOCKET, syscall.SO_LINGER,
		uintptr(unsafe.Pointer(&l)), uintptr(unsafe.Pointer(&size)), 0); errno != 0 {
		t.Fatal(errno)
	}
	return l.Onoff != 0 && l.Linger == 0
}

// peer is the far end of the socket d writes.
func (g *endsRig) peer(d *dir) *net.TCPConn {
	if d.side == Client {
		return g.server
	}
	return g.player
}

var (
	errTestFail = errors.New("a call of the direction failed")
	errTestStop = errors.New("ended from outside")
)

// eventErr is the error a test step passes with ev: why the direction ends.
func eventErr(ev dirEvent) error {
	switch ev {
	case evFail:
		return errTestFail
	case evStop:
		return errTestStop
	}
	return nil
}

// wantTimer is what the link's timer is for after a dirRules row did do to side's
// direction, from before; other is where the other direction stood.
func wantTimer(before timerKind, side Side, do act, other dirState) timerKind {
	switch {
	case do&actLinger != 0 && other != dirEnded:
		return timerLinger
	case side == Client && do&actStall != 0 && before == timerNone:
		return timerStall
	case side == Client && do&actUnstall != 0 && before == timerStall:
		return timerNone
	}
	return before
}

// walkUnlisted runs check, as a subtest, for every pair of state and event tab does
// not list (newTable refuses a pair listed twice, so the rest is all of them).
func walkUnlisted[S, E ~uint8](t *testing.T, tab *table[S, E], check func(*testing.T, S, E)) {
	for i, r := range tab.next {
		if r.ok {
			continue
		}
		s, ev := S(i/tab.events), E(i%tab.events)
		t.Run(fmt.Sprint(s, "/", ev), func(t *testing.T) { check(t, s, ev) })
	}
}
