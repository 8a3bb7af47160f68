//go:build linux

package main

import "syscall"

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT: with a source address but
// no port, the port is picked at connect time by the whole 4-tuple, as for an unbound
// socket, instead of at bind time from the ports free on that address. Thousands of
// connections a second would exhaust the latter within a minute of TIME_WAITs.
const ipBindAddressNoPort = 24

func noPortBind(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
