//go:build !linux

package main

import "syscall"

// bindNoPort is a Linux refinement; elsewhere bind() picks the port.
func bindNoPort(_, _ string, _ syscall.RawConn) error { return nil }
