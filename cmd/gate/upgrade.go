package main

import (
	"context"
	"errors"
	"net"
	"strconv"
)

// errUpgraded is why an upgraded process stops accepting: its successor accepts.
var errUpgraded = errors.New("upgraded: the new process serves the players")

// listen binds addr for the listener called name, or takes the one a previous
// process of gate handed over (upgrade) when it listens on the same address.
func (a *app) listen(ctx context.Context, name, addr string) (net.Listener, error) {
	if ln := a.takeListener(name, addr); ln != nil {
		return ln, nil
	}
	var lc net.ListenConfig
	return lc.Listen(ctx, "tcp", addr)
}

// sameAddr reports whether a listener bound to have serves the configured want: the
// same port, and the same host unless want names no host (every interface).
func sameAddr(have net.Addr, want string) bool {
	host, port, err := net.SplitHostPort(want)
	h, ok := have.(*net.TCPAddr)
	if err != nil || !ok || port != "0" && strconv.Itoa(h.Port) != port { // 0: any port, the one in use
		return false
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || ip != nil && ip.IsUnspecified():
		return h.IP.IsUnspecified()
	case ip == nil:
		return false // a name: bound afresh rather than resolved here
	}
	return ip.Equal(h.IP)
}
