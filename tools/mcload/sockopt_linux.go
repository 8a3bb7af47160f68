package main

import "syscall"

// ipBindAddressNoPort is IP_BIND_ADDRESS_NO_PORT (Linux 4.2+), missing from syscall.
const ipBindAddressNoPort = 24

// bindNoPort lets a dialer bound to a source address leave the port choice to
// connect(), which avoids 4-tuples still in TIME_WAIT; bind() alone picks a port
// blindly, and a storm's next connection then collides with the last one's
// TIME_WAIT and is refused.
func bindNoPort(_, _ string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
	}); err != nil {
		return err
	}
	return serr
}
