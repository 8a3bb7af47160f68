//go:build !linux

package main

import "syscall"

// noPortBind is a Linux refinement; elsewhere bind() picks the port.
func noPortBind(_, _ string, _ syscall.RawConn) error { return nil }
