//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.minekube.com/gate/pkg/lite/handover"
)

// upgrader is a process's part in upgrades: the hand-over it was started by (if
// any), SIGUSR2, one upgrade at a time, and the end of Serve once a successor took over.
type upgrader struct {
	inherited *handover.Inherited
	sig       chan os.Signal
	busy      atomic.Bool // an upgrade runs, or this process is still being handed sessions
	endServe  context.CancelCauseFunc
}

// prepareUpgrade listens for SIGUSR2 (whose default would kill the process) and takes
// the hand-over this process was started for, if any: its listeners first.
func (a *app) prepareUpgrade() error {
	a.up.sig = make(chan os.Signal, 1)
	signal.Notify(a.up.sig, syscall.SIGUSR2)
	h, err := handover.Inherit()
	if err != nil {
		signal.Stop(a.up.sig)
		return err
	}
	a.up.inherited = h
	a.up.busy.Store(h != nil)
	return nil
}

// upgradable is ctx, ended with errUpgraded once a successor took over.
func (a *app) upgradable(ctx context.Context) context.Context {
	ctx, a.up.endServe = context.WithCancelCause(ctx)
	return ctx
}

// takeListener is the listener a previous process handed over as name, when it
// listens on addr; nil otherwise (then addr is bound afresh).
func (a *app) takeListener(name, addr string) net.Listener {
	if a.up.inherited == nil {
		return nil
	}
	ln, ok, err := a.up.inherited.Listener(name)
	switch {
	case err != nil:
		a.log.Error(err, "upgrade: inherited listener unusable; binding afresh", "listener", name)
		return nil
	case !ok:
		return nil
	case !sameAddr(ln.Addr(), addr):
		a.log.Info("upgrade: the config moved this listener; binding afresh", "listener", name, "was", ln.Addr().String(), "bind", addr)
		_ = ln.Close()
		return nil
	}
	return ln
}

// upgrades serves this process's part in upgrades until ctx ends: taking over from
// the previous process, then SIGUSR2 (one upgrade at a time).
func (a *app) upgrades(ctx context.Context) {
	defer signal.Stop(a.up.sig)
	var wg sync.WaitGroup
	defer wg.Wait()
	if h := a.up.inherited; h != nil {
		wg.Go(func() {
			a.takeOver(ctx, h)
			a.up.busy.Store(false)
		})
	} else {
		notifySystemd("READY=1") // every listener is bound: connections queue until Serve accepts
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.up.sig:
			if !a.up.busy.CompareAndSwap(false, true) {
				a.log.Info("SIGUSR2: upgrade refused: one is already in progress")
				continue
			}
			wg.Go(func() { a.upgrade(ctx) })
		}
	}
}

// upgrade starts the binary now on disk with this process's arguments and
// environment, hands it the listeners and, once it is ready, every session; then
// this process stops accepting and ends as its logins in flight finish. A successor
// that is not ready in time changes nothing here.
func (a *app) upgrade(ctx context.Context) {
	exe, err := os.Executable()
	var h *handover.Handover
	if err == nil {
		h, err = a.successor(exe)
	}
	if err != nil {
		a.log.Error(err, "upgrade failed; this process keeps serving everything", "binary", exe)
		a.up.busy.Store(false)
		return
	}
	a.log.Info("upgrade: the new process is ready; handing the sessions over", "pid", h.Pid(), "binary", exe)
	a.proxy.HandOff(h)
	if h.Flush() != nil {
		_ = h.Close()
		a.up.busy.Store(false)
		return // the proxy said why; both processes serve what they have
	}
	a.up.endServe(fmt.Errorf("%w (pid %d)", errUpgraded, h.Pid()))
	<-ctx.Done() // Serve returned: no session moves any more
	_ = h.Close()
}

// successor starts the new process with this one's listeners.
func (a *app) successor(exe string) (*handover.Handover, error) {
	if os.Getpid() == 1 {
		return nil, fmt.Errorf("gate runs as PID 1, whose exit ends the container: run it under an init that outlives it (docs/lite/upgrade.md)")
	}
	var ls []handover.Listener
	for name, ln := range map[string]net.Listener{"players": a.ln, "api": a.apiLn, "probe": a.probeLn} {
		if tl, ok := ln.(*net.TCPListener); ok {
			ls = append(ls, handover.Listener{Name: name, Socket: tl})
		}
	}
	return handover.Start(handover.Offer{Path: exe, Args: os.Args[1:], Env: os.Environ(), Listeners: ls})
}

// takeOver says this process is ready once it serves, then adopts the previous
// process's sessions until it hangs up.
func (a *app) takeOver(ctx context.Context, h *handover.Inherited) {
	defer h.Close()
	if err := h.Ready(); err != nil { // the listeners are bound: connections queue until Serve accepts
		a.log.Error(err, "upgrade: could not tell the old process this one is ready")
		return
	}
	notifySystemd(fmt.Sprintf("MAINPID=%d\nREADY=1", os.Getpid()))
	stop := context.AfterFunc(ctx, func() { _ = h.Close() })
	defer stop()
	n := 0
	err := h.Receive(func(s *handover.Session) error {
		err := a.proxy.Adopt(s)
		if err == nil {
			n++
		}
		return err
	})
	if err != nil {
		a.log.Error(err, "upgrade: the hand-over ended early; the old process keeps what it did not send", "sessions", n)
		return
	}
	a.log.Info("upgrade: took over from the old process", "sessions", n)
}

// notifySystemd tells systemd (Type=notify) state.
func notifySystemd(state string) {
	addr := os.Getenv("NOTIFY_SOCKET")
	if addr == "" {
		return
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		return
	}
	defer c.Close()
	_, _ = c.Write([]byte(state))
}

// upgradeCmd is `gate lite upgrade --pid PID`: it asks that gate (SIGUSR2) to hand
// everything to the binary now on disk, and waits until the old process is gone.
func upgradeCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate lite upgrade", stderr)
	pid := fs.Int("pid", 0, "the running gate's process id (systemd: $MAINPID)")
	wait := fs.Duration("timeout", time.Minute, "how long to wait for the old process to exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *pid <= 0 {
		fmt.Fprintln(stderr, "gate lite upgrade: --pid is required")
		return 2
	}
	if err := syscall.Kill(*pid, syscall.SIGUSR2); err != nil {
		fmt.Fprintf(stderr, "gate lite upgrade: signal process %d: %v\n", *pid, err)
		return 1
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(*wait); time.Now().Before(deadline); <-tick.C {
		if !alive(*pid) {
			fmt.Fprintf(stdout, "gate lite upgrade: process %d handed over and exited\n", *pid)
			return 0
		}
	}
	fmt.Fprintf(stderr, "gate lite upgrade: process %d still runs after %v: the upgrade failed, "+
		"or logins in flight are finishing there; its log says which\n", *pid, *wait)
	return 1
}

// alive reports whether process pid exists and has not exited (a zombie has).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses, which may hold anything.
	for i := len(b) - 1; i > 0; i-- {
		if b[i] == ')' {
			return i+2 >= len(b) || b[i+2] != 'Z'
		}
	}
	return true
}
