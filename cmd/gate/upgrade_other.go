//go:build !linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
)

// upgrader: upgrades hand sockets over with SCM_RIGHTS and epoll-parked relays,
// which only the Linux build has.
type upgrader struct{}

func (a *app) prepareUpgrade() error                          { return nil }
func (a *app) upgradable(ctx context.Context) context.Context { return ctx }
func (a *app) takeListener(name, addr string) net.Listener    { return nil }
func (a *app) upgrades(ctx context.Context)                   { <-ctx.Done() }

func upgradeCmd(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "gate lite upgrade: not supported on this platform (Linux only)")
	return 1
}
